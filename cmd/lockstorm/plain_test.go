package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goisms are what an error line must never show: Go type names, YAML
// tags, parser names.
var goisms = []string{"harness.", "analysis.", "sweep.", "nemesis.", "[]string", "!!", "strconv.", "time.Duration", "Go struct", "Go value", "int64", "float64", "unmarshal"}

// Bad input to every subcommand, as flags or in YAML and JSON files:
// exit 2 and one line on stderr that says what the value must be, with no
// Go type names.
func TestErrorsInWords(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	st := filepath.Join(dir, "store")
	run := func(args ...string) []string { return append([]string{"run", "--store", st}, args...) }
	cases := []usageCase{
		{run("--clients", "abc"), `--clients must be a whole number, got "abc"`},
		{run("--ttl", "soon"), `--ttl must be a duration like 1s or 300ms, got "soon"`},
		{run("--target-holder", "x"), `--target-holder must be a number`},
		{run("--fencing=maybe"), `--fencing must be true or false`},
		{run("--seed", "1.5"), `--seed must be a whole number`},
		{run("--runs", "x"), `--runs must be a whole number`},
		{run("--config", file("p1.yaml", "nodes: abc\n")), `nodes must be a whole number, got "abc"`},
		{run("--config", file("p2.yaml", "clients: 1.5\n")), `clients must be a whole number`},
		{run("--config", file("p3.yaml", "ttl: [1s]\n")), `ttl must be a duration`},
		{run("--config", file("p4.yaml", "lock: {a: 1}\n")), `lock must be a word, got a mapping`},
		{run("--config", file("p5.yaml", "fencing: maybe\n")), `fencing must be true or false`},
		{run("--config", file("p6.yaml", "nemesis: {a: b}\n")), `nemesis must be a list`},
		{run("--config", file("p7.yaml", "redis-addrs: [[a]]\n")), `redis-addrs must be a list`},
		{run("--config", file("p8.yaml", "seed: x\n")), `seed must be a whole number`},
		{run("--config", file("p9.yaml", "target-holder: [1]\n")), `target-holder must be a number, got a list`},
		{[]string{"analyze", filepath.Dir(file("a1/test.json", `{"config":{"lock":5}}`))}, "config.lock must be a word, got a number"},
		{[]string{"analyze", filepath.Dir(file("a2/test.json", `{"config":{"plan":"x"}}`))}, "config.plan must be a mapping"},
		{[]string{"catalog", "--seeds", "x"}, "--seeds must be a whole number"},
		{[]string{"catalog", "--only", "x"}, "--only must be"},
		{[]string{"serve", "--port", "x"}, "--port must be a whole number"},
		{[]string{"sweep", "--store", st, "--clients", "abc"}, "--clients must be a whole number"},
		{[]string{"sweep", "--store", st, "--time-limit", "soon"}, "duration"},
		{[]string{"sweep", "--store", st, "--config", file("s1.yaml", "clients: abc\n")}, `want a whole number, got "abc"`},
		{[]string{"sweep", "--store", st, "--config", file("s2.yaml", "seeds: [1]\n")}, "want a whole number, got a list"},
		{[]string{"sweep", "--store", st, "--config", file("s3.yaml", "bogus: 1\n")}, "unknown key bogus"},
		{[]string{"compare", "--store", st, "--ttl", "soon"}, "--ttl must be a duration"},
		{[]string{"compare", "--store", st, "--clients", "x"}, "--clients must be a whole number"},
		{[]string{"power", "--store", st, "--seeds", "x"}, "--seeds must be a whole number"},
		{[]string{"power", "--store", st, "--time-limit", "soon"}, "--time-limit must be a duration"},
		{[]string{"client", "--lock", "single", "--bogus"}, "unknown flag: --bogus"},
	}
	wantUsageErrors(t, bin, st, cases)
	for _, tc := range cases {
		_, _, stderr := exec1(t, bin, tc.args...)
		for _, g := range goisms {
			if strings.Contains(stderr, g) {
				t.Errorf("%v: %q shows %q", tc.args, stderr, g)
			}
		}
	}
}

// plain rewrites what the parsers say into words.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"s.yaml: yaml: unmarshal errors:;   line 1: cannot unmarshal !!str `abc` into int":           `s.yaml: line 1: want a whole number, got "abc"`,
		"line 3: cannot unmarshal !!str into []string":                                               "line 3: want a list of words, got a word",
		"field bogus not found in type sweep.Raw":                                                    "unknown key bogus",
		"json: cannot unmarshal string into Go struct field Config.config.plan of type nemesis.Plan": "config.plan must be a mapping, got a word",
		`strconv.ParseInt: parsing "x": invalid syntax`:                                              `"x" is not a number`,
		`time: invalid duration "soon"`:                                                              `"soon" is not a duration like 1s or 300ms`,
		"want time.Duration":                                                                         "want duration like 1s or 300ms",
		"a harness.Plan is needed":                                                                   "a value is needed",
		"a config.External is needed":                                                                "a value is needed",
	} {
		if got := plain(in); got != want {
			t.Errorf("plain(%q) = %q, want %q", in, got, want)
		}
	}
}
