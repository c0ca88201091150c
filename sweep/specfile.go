package sweep

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A sweep spec file (`sweep --config PATH`) is a YAML mapping whose keys
// are named like the flags. Its errors name the key and what it takes, in
// words: `sweep spec: runs: want a whole number, got "x" (line 3 of
// sweep.yaml)`, and a value the file gave that Spec then refuses is named
// by its key too: `sweep spec: ttl: must be a comma-separated list of
// positive durations like 200ms or 1s, got "abc" (in sweep.yaml)`.

// specFile is where a Raw's values came from: the file's path and the
// keys it set that no flag overrode.
type specFile struct {
	path string
	keys map[string]bool
}

// allowedKeys lists the keys of a spec file, for the unknown-key error.
const allowedKeys = "name, ttl, renew, pause, fencing-axis, nemesis, seeds, time-limit, store, clients, hold-min, hold-max, topology, client-cmd, client-dir, lock, zoo-entry"

// fields maps each key to the field of r it fills.
func (r *Raw) fields() map[string]any {
	return map[string]any{
		"name": &r.Name, "ttl": &r.TTL, "renew": &r.Renew, "pause": &r.Pause, "fencing-axis": &r.Fencing,
		"seeds": &r.Seeds, "time-limit": &r.TimeLimit, "store": &r.Store, "clients": &r.Clients,
		"hold-min": &r.HoldMin, "hold-max": &r.HoldMax, "topology": &r.Topology, "nemesis": &r.Nemesis,
		"client-cmd": &r.ClientCmd, "client-dir": &r.ClientDir, "lock": &r.Lock, "zoo-entry": &r.ZooEntry,
	}
}

// LoadRaw reads a YAML sweep spec file. An unknown key, or a value of the
// wrong kind, is an error naming the key.
func LoadRaw(path string) (Raw, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Raw{}, bad("--config: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		msg := strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n", "; "), "yaml: ")
		return Raw{}, bad("sweep spec: not YAML: %s (in %s)", msg, path)
	}
	r := Raw{file: &specFile{path: path, keys: map[string]bool{}}}
	if len(doc.Content) == 0 {
		return r, nil // an empty file: every key its default
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return Raw{}, bad("sweep spec: want keys like \"ttl: 200ms,1s\", got %s (line %d of %s)", nodeKind(m), m.Line, path)
	}
	fields := r.fields()
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		dst, ok := fields[k.Value]
		if !ok {
			return Raw{}, bad("sweep spec: unknown key %s (line %d of %s; allowed keys: %s)", k.Value, k.Line, path, allowedKeys)
		}
		err := v.Decode(dst)
		if isInt(dst) && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!int" && v.ShortTag() != "!!null" {
			err = errors.New("not a whole number") // YAML would truncate 3.5 to 3
		}
		if err != nil {
			return Raw{}, bad("sweep spec: %s: %s (line %d of %s)", k.Value, want(dst, v, err), v.Line, path)
		}
		r.file.keys[k.Value] = true
	}
	return r, nil
}

// want says what the key's field takes and what the file gave instead.
func want(dst any, v *yaml.Node, err error) string {
	var le listError
	if errors.As(err, &le) {
		return string(le)
	}
	what := "a single value"
	if isInt(dst) {
		what = "a whole number"
	}
	if v.Kind == yaml.ScalarNode {
		return fmt.Sprintf("want %s, got %q", what, v.Value)
	}
	return fmt.Sprintf("want %s, got %s", what, nodeKind(v))
}

// isInt reports whether dst is a whole-number field.
func isInt(dst any) bool {
	switch dst.(type) {
	case *int, *int64:
		return true
	}
	return false
}

// nodeKind names a YAML node's kind in words.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("%q", n.Value)
}

// listError is List.UnmarshalYAML's refusal, already in words.
type listError string

func (e listError) Error() string { return string(e) }

// without is f less the keys set reports as given (flags that override
// the file); nil for no file.
func (f *specFile) without(set func(key string) bool) *specFile {
	if f == nil {
		return nil
	}
	g := &specFile{path: f.path, keys: map[string]bool{}}
	for k := range f.keys {
		if !set(k) {
			g.keys[k] = true
		}
	}
	return g
}

// flagAtStart matches a Spec error's leading flag ("--ttl must be ...").
var flagAtStart = regexp.MustCompile(`^--([a-z-]+)( ?)(.*)$`)

// name rewrites err, a Spec error naming a flag first, to name the key of
// the file when the file gave that value: "--ttl must be ..." becomes
// "sweep spec: ttl: must be ... (in PATH)". Other errors are returned as
// they are.
func (f *specFile) name(err error) error {
	if err == nil || f == nil || !errors.Is(err, ErrSpec) {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), ErrSpec.Error()+": ")
	m := flagAtStart.FindStringSubmatch(msg)
	if m == nil || !f.keys[m[1]] {
		return err
	}
	rest := m[3]
	for k := range f.keys { // other keys the sentence names ("--hold-max")
		rest = strings.ReplaceAll(rest, "--"+k, k)
	}
	if strings.HasPrefix(rest, "(") { // "--hold-min (1s) must not exceed ..."
		return bad("sweep spec: %s %s (in %s)", m[1], rest, f.path)
	}
	return bad("sweep spec: %s: %s (in %s)", m[1], rest, f.path)
}
