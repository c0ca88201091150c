package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sweep spec file's errors name the key, say what it takes in words and
// where: a value of the wrong kind (LoadRaw), a value Spec refuses, an
// unknown key. A flag given explicitly overrides the file's value, and
// then its error names the flag.
func TestSpecFileErrorsNameTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	load := func(yaml string, set ...string) error {
		t.Helper()
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := LoadRaw(path)
		if err != nil {
			return err
		}
		flags := DefaultRaw()
		flags.TTL = "1s,abc"
		given := func(k string) bool {
			for _, s := range set {
				if s == k {
					return true
				}
			}
			return false
		}
		_, err = r.Merge(flags, given).FillDefaults().Spec()
		return err
	}
	for _, c := range []struct {
		yaml string
		set  []string
		want string
	}{
		{"seeds: x\n", nil, `sweep spec: seeds: want a whole number, got "x" (line 1 of ` + path + ")"},
		{"ttl: 1s\nseeds: 3.5\n", nil, `sweep spec: seeds: want a whole number, got "3.5" (line 2 of `},
		{"clients: [1]\n", nil, "sweep spec: clients: want a whole number, got a list (line 1 of "},
		{"time-limit: [8s]\n", nil, "sweep spec: time-limit: want a single value, got a list"},
		{"ttl: [1s, {a: b}]\n", nil, "sweep spec: ttl: want a list of plain values, got a mapping in it"},
		{"ttl: abc\n", nil, `sweep spec: ttl: must be a comma-separated list of durations like 300ms or 1.5s, got "abc" (in ` + path + ")"},
		{"ttl: 5ms\n", nil, `sweep spec: ttl: must be a duration of at least 10ms, got 5ms (in ` + path + ")"},
		{"seeds: -1\n", nil, "sweep spec: seeds: must be at least 1, got -1"},
		{"hold-min: 1s\nhold-max: 500ms\n", nil, "sweep spec: hold-min (1s) must not exceed hold-max (500ms)"},
		{"renw: none\n", nil, `sweep spec: unknown key renw (line 1 of ` + path + "; allowed keys: name, ttl"},
		{"- ttl\n", nil, "sweep spec: want keys like"},
		{"ttl: 1s\n", []string{"ttl"}, `--ttl must be a comma-separated list of durations like 300ms or 1.5s, got "abc"`},
	} {
		err := load(c.yaml, c.set...)
		if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q (flags %v): %v\nwant one line with %q", c.yaml, c.set, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "!!") {
			t.Errorf("%q: error shows a YAML tag: %v", c.yaml, err)
		}
	}
	if err := load("seeds: 2\nttl: [200ms, 1s]\n"); err != nil {
		t.Errorf("a good file: %v", err)
	}
}
