package zoo

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
)

// stampFile, in an entry's folder, holds its BuildHash after its last
// successful build: while the entry hashes the same, the build is skipped.
const stampFile = ".lockstorm-build"

// buildTimeout bounds one entry's build (a first Go build downloads modules).
const buildTimeout = 10 * time.Minute

// Hash is a digest of every file under dir (names, modes and contents),
// except version-control folders and the build stamp.
func Hash(dir string) (string, error) {
	h := sha256.New()
	err := hashTree(h, dir, false)
	return hex.EncodeToString(h.Sum(nil))[:16], err
}

// hashTree writes to h the name, mode and content (a linked file's too)
// of every file under root but version control and the build stamp; or,
// goOnly, the name and content of every non-test .go file, go.mod and
// go.sum outside the zoo, stores, binaries and testdata.
func hashTree(h io.Writer, root string, goOnly bool) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel, name := filepath.ToSlash(rel), d.Name()
		if d.IsDir() {
			if path != root && (name == ".git" || goOnly && slices.Contains([]string{"zoo", "store", "bin", "testdata", "node_modules"}, name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if goOnly {
			if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || name == "go.mod" || name == "go.sum" {
				fmt.Fprintf(h, "%s\x00", rel)
				return hashFile(h, path)
			}
			return nil
		}
		if rel == stampFile {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%o\x00", rel, info.Mode())
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			h.Write([]byte(target))
		}
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return hashFile(h, path)
		}
		return nil
	})
}

// hashFile writes path's content to h.
func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// SkipReason says why an entry cannot run here (its requires command failed,
// or its build's or client's program is missing), or "" when it can.
func SkipReason(ctx context.Context, e Entry) string {
	if e.Requires != "" {
		out, err := shell(ctx, e.Dir, e.Requires, time.Minute)
		if err != nil {
			return "requires `" + e.Requires + "` failed: " + cmp.Or(lastLine(out), err.Error())
		}
		return ""
	}
	for _, cmd := range []string{e.Build, e.Client} {
		words, err := config.SplitCommand(cmd)
		if err != nil { // an empty command (no build) too
			continue
		}
		if p := words[0]; !strings.ContainsRune(p, '/') && p != "lockstorm" {
			if _, err := exec.LookPath(p); err != nil {
				return p + " not found on PATH"
			}
		}
	}
	return ""
}

// Build runs the entry's build command in its folder unless the entry
// still hashes (BuildHash: its folder and the local modules its go.mod
// replaces) as it did after its last successful build. It returns
// whether it built, and the build's output on failure.
func Build(ctx context.Context, e Entry) (built bool, err error) {
	if e.Build == "" {
		return false, nil
	}
	h, err := BuildHash(e.Dir)
	if err != nil {
		return false, err
	}
	if old, err := os.ReadFile(filepath.Join(e.Dir, stampFile)); err == nil && strings.TrimSpace(string(old)) == h {
		return false, nil
	}
	out, err := shell(ctx, e.Dir, e.Build, buildTimeout)
	if err != nil {
		return true, fmt.Errorf("build `%s` failed: %v: %s", e.Build, err, lastLine(out))
	}
	h, err = BuildHash(e.Dir)
	if err != nil {
		return true, err
	}
	return true, os.WriteFile(filepath.Join(e.Dir, stampFile), []byte(h+"\n"), 0o644)
}

// shell runs command with sh -c in dir, and returns its combined output.
func shell(ctx context.Context, dir, command string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
