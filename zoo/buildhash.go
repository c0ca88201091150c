package zoo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// BuildHash decides whether an entry must be built again: the hash of its
// folder and of the Go sources of the local folders its go.mod replaces
// modules with (lockstorm itself, ../.., for entries on its adapters).
func BuildHash(dir string) (string, error) {
	own, err := Hash(dir)
	if err != nil {
		return "", err
	}
	locals, err := localReplaces(filepath.Join(dir, "go.mod"))
	if err != nil || len(locals) == 0 {
		return own, err
	}
	h := sha256.New()
	h.Write([]byte(own))
	for _, rel := range locals {
		if err := hashTree(h, filepath.Join(dir, rel), true); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// localReplaces are the folders go.mod's replace directives point at
// (targets starting with ./ or ../), in file order; none without a go.mod.
func localReplaces(gomod string) ([]string, error) {
	b, err := os.ReadFile(gomod)
	if os.IsNotExist(err) {
		return nil, nil
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "replace"))
		_, target, ok := strings.Cut(line, "=>")
		if !ok {
			continue
		}
		if t := strings.Fields(target); len(t) == 1 && (strings.HasPrefix(t[0], "./") || strings.HasPrefix(t[0], "../")) {
			out = append(out, t[0])
		}
	}
	return out, err
}
