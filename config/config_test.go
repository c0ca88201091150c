package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/workloads"
)

func customLock(c []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
	return lockimpl.NewSingle(c[0], opt), nil
}

// Configurations refused with an error naming the field, and what the
// accepted ones become.
func TestConfigRefusesAndSwitches(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  config.Config
		want string // error text; empty: accepted
	}{
		{"custom lock without Nodes", config.Config{NewLock: customLock}, "Nodes must be set"},
		{"custom lock named like a built-in, without Nodes", config.Config{Lock: "redlock", NewLock: customLock}, "Nodes must be set"},
		{"redlock on 2 nodes", config.Config{Lock: "redlock", Nodes: 2}, "--nodes must be at least 3 for redlock"},
		{"redsync on 1 node", config.Config{Lock: "redsync", Nodes: 1}, "--nodes must be at least 3"},
		{"none with a fault", config.Config{Nemesis: []string{"none", "partition"}}, "--nemesis none means no faults"},
		{"drift factor above one half", config.Config{DriftFactor: 0.6}, "DriftFactor below 0.5"},
		{"custom redlock on 2 nodes is the user's call", config.Config{NewLock: customLock, Nodes: 2}, ""},
		{"redlock default", config.Config{Lock: "redlock"}, ""},
		{"none alone", config.Config{Nemesis: []string{"none"}}, ""},
		{"hold-min above hold-max", config.Config{Workloads: workloads.Options{HoldMin: 5 * time.Millisecond, HoldMax: time.Millisecond}}, "--hold-min (5ms) must not exceed --hold-max (1ms)"},
		{"negative think", config.Config{Workloads: workloads.Options{Think: -time.Millisecond}}, "must not be negative"},
		{"tiny holds", config.Config{Workloads: workloads.Options{HoldMin: 100 * time.Microsecond, HoldMax: 100 * time.Microsecond, Think: 100 * time.Microsecond, AcquireTimeout: 10 * time.Millisecond}}, ""},
	} {
		got, err := tc.cfg.WithDefaults()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v (config %+v), want an ErrConfig with %q", tc.name, err, got, tc.want)
		}
	}
	c, _ := config.Config{Nemesis: []string{"none"}}.WithDefaults()
	if len(c.Nemesis) != 0 {
		t.Errorf("--nemesis none left %v", c.Nemesis)
	}
	// Fair reaches the liveness checker; a custom lock's only from the
	// field (TestWithDefaultsTable: a built-in lock's from its name).
	for _, tc := range []struct {
		cfg  config.Config
		fair bool
	}{
		{config.Config{Lock: "fair", NewLock: customLock, Nodes: 1}, false},
		{config.Config{NewLock: customLock, Nodes: 1, Fair: true}, true},
	} {
		c, err := tc.cfg.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		var lv *checker.Liveness
		for _, ch := range analysis.Checkers(&analysis.Result{Config: c}).Checkers {
			if l, ok := ch.(*checker.Liveness); ok {
				lv = l
			}
		}
		if c.Fair != tc.fair || lv == nil || lv.Fair != tc.fair {
			t.Errorf("lock %q custom=%v Fair=%v: config Fair %v, liveness %+v; want %v", tc.cfg.Lock, tc.cfg.NewLock != nil, tc.cfg.Fair, c.Fair, lv, tc.fair)
		}
	}
}

// The command line refuses an explicit 0 and fencing without tokens; the
// Go API keeps zero as "default".
func TestCheckGiven(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(f string) bool { return strings.Contains(","+strings.Join(names, ",")+",", ","+f+",") }
	}
	for _, tc := range []struct {
		cfg   config.Config
		given func(string) bool
		want  string
	}{
		{config.Config{}, given("ttl"), "--ttl must be"},
		{config.Config{}, given("nodes"), "--nodes must be 1..15"},
		{config.Config{}, given("clients"), "--clients must be 1..64"},
		{config.Config{}, given("time-limit"), "--time-limit must be"},
		{config.Config{Lock: "single", Fencing: true}, nil, "--fencing needs a lock that issues fencing tokens"},
		{config.Config{Lock: "redlock", Fencing: true}, nil, "redlock issues none"},
		{config.Config{Fencing: true}, nil, "single issues none"},
		{config.Config{}, nil, ""},
		{config.Config{TTL: time.Second}, given("ttl"), ""},
		{config.Config{Lock: "fenced", Fencing: true}, nil, ""},
		{config.Config{NewLock: customLock, Fencing: true}, nil, ""}, // unknowable before the run
	} {
		err := tc.cfg.CheckGiven(tc.given)
		if (tc.want == "") != (err == nil) || err != nil && (!errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// parseRun parses a `lockstorm run` command line's settings (and
// --config) as the CLI does.
func parseRun(t *testing.T, args []string) (config.Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var flags config.Config
	var plan string
	config.AddFlags(fs, &flags)
	fs.StringVar(&plan, "config", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return config.CommandLine(flags, fs.Changed, plan)
}

// The replay command carries every setting that changed the run: parsed
// back, it gives the same configuration, all but where the run is stored
// and what is kept after it.
func TestReplayArgsRoundTrip(t *testing.T) {
	for _, c := range []config.Config{
		{},
		{Lock: "redlock", Nemesis: []string{"partition", "crash"}, Seed: 42, Persistence: "aof-always"},
		{Lock: "fenced", Fencing: true, Nemesis: []string{"client-pause"}, TTL: 500 * time.Millisecond, RenewEvery: 100 * time.Millisecond,
			MinCoverage: -1, TargetHolder: 0.5, Clients: 7, TimeLimit: 9 * time.Second, FaultInterval: time.Second, Seed: 7, Workload: "cron"},
		{Provider: "docker", DockerImage: "lockstorm/redis:7", Seed: 3, MinCoverage: 4, TargetHolder: -1},
		{Clients: 64, Seed: 5, Workloads: workloads.Options{HoldMin: 100 * time.Microsecond, HoldMax: 100 * time.Microsecond,
			Think: 100 * time.Microsecond, AcquireTimeout: 10 * time.Millisecond}},
		{Seed: 6, Workloads: workloads.Options{HoldMax: 10 * time.Millisecond}},
		{Provider: "external", External: config.External{RedisAddrs: []string{"127.0.0.1:6379", "127.0.0.1:6380"}, Toxiproxy: "127.0.0.1:8474",
			ListenHost: "10.0.0.1", PasswordEnv: "PW", TLS: true, AllowNonLoopback: true}, Seed: 9},
	} {
		want, err := c.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		args := config.ReplayArgs(want)
		parsed, err := parseRun(t, args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		got, err := parsed.WithDefaults()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("replay %v\n gives %+v\n  want %+v", args, got, want)
		}
	}
}

// Name, store and keep say where a run is stored and what is kept: the
// replay command leaves them out; a provider at its default is left out.
func TestReplayArgsLeaveOutWhereStored(t *testing.T) {
	c, _ := config.Config{Name: "mine", Store: "/tmp/x", KeepClusterDir: true, Seed: 1}.WithDefaults()
	line := strings.Join(config.ReplayArgs(c), " ")
	for _, not := range []string{"--name", "--store", "--keep", "--provider", "--docker-image", "--fencing"} {
		if strings.Contains(line, not) {
			t.Errorf("%q has %s", line, not)
		}
	}
}

// Flags given explicitly win over the plan; the rest comes from the plan;
// an explicit --min-coverage 0 means no bar, in a plan as on a flag.
func TestCommandLineFlagsOverPlan(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("lock: redlock\nnodes: 3\nttl: 400ms\nnemesis: [partition]\nmin-coverage: 0\nredis-addrs: [a:1, b:2]\n"), 0o644)
	c, err := parseRun(t, []string{"--config", plan, "--nodes", "7", "--clients", "2", "--target-holder", "0"})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{Lock: "redlock", Nodes: 7, TTL: 400 * time.Millisecond, Nemesis: []string{"partition"}, MinCoverage: -1,
		Clients: 2, TargetHolder: -1, External: config.External{RedisAddrs: []string{"a:1", "b:2"}}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	c, err = parseRun(t, []string{"--nemesis", "partition,crash", "--ttl", "2s"})
	if err != nil || c.Lock != "single" || c.TTL != 2*time.Second || len(c.Nemesis) != 2 || c.Clients != 4 {
		t.Errorf("without a plan: %+v, %v", c, err)
	}
}

// LoadPlan refuses, naming the key, a key written as 0 where 0 is no
// test (as the flag), fencing without tokens, an unknown or repeated key,
// a wrong type or a bad duration, in words (no Go types); a list is a
// YAML list or one comma-separated string.
func TestLoadPlanTable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		yaml, err string // err: "" when accepted
		nemesis   []string
	}{
		{"nodes: 0\n", "--nodes must be 1..15", nil},
		{"ttl: 0s\n", "--ttl must be", nil},
		{"clients: 0\n", "--clients must be", nil},
		{"time-limit: 0s\n", "--time-limit must be", nil},
		{"lock: single\nfencing: true\n", "--fencing needs", nil},
		{"fencing: true\n", "single issues none", nil}, // the default lock
		{"lock: fenced\nfencing: true\n", "", nil},
		{"lock: single\n", "", nil},
		{"lok: single\n", "line 1: field lok not found (allowed fields: acquire-timeout, allow-non-loopback, client-cmd, client-dir, clients,", nil},
		{"lock: single\nlock: fair\n", `line 2: mapping key "lock" already defined at line 1`, nil},
		{"nodes: many\n", `line 1: nodes must be a whole number, got "many"`, nil},
		{"clients: 1.5\n", `line 1: clients must be a whole number, got "1.5"`, nil},
		{"fencing: maybe\n", `line 1: fencing must be true or false, got "maybe"`, nil},
		{"target-holder: x\n", `line 1: target-holder must be a number, got "x"`, nil},
		{"seed: x\n", `line 1: seed must be a whole number, got "x"`, nil},
		{"lock: [a]\n", "line 1: lock must be a word, got a list", nil},
		{"ttl: [1s]\n", "line 1: ttl must be a duration like 1s or 300ms, got a list", nil},
		{"ttl: soon\n", "ttl must be a duration like 1s or 300ms, got \"soon\"", nil},
		{"- lock\n", "a plan is a mapping", nil},
		{"lock: [\n", "yaml:", nil},
		{"nemesis: client-pause\n", "", []string{"client-pause"}},
		{"nemesis: partition, latency\n", "", []string{"partition", "latency"}},
		{"nemesis: [partition, crash]\n", "", []string{"partition", "crash"}},
		{"nemesis:\n  - flush\n  - latency\n", "", []string{"flush", "latency"}},
		{"nemesis: {a: b}\n", "nemesis must be a list", nil},
	} {
		p := filepath.Join(dir, "plan.yaml")
		if err := os.WriteFile(p, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := config.LoadPlan(p)
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "[]string")) ||
			tc.err == "" && (err != nil || !reflect.DeepEqual(c.Nemesis, tc.nemesis)) {
			t.Errorf("plan %q: %v, nemesis %v; want error %q, nemesis %v", tc.yaml, err, c.Nemesis, tc.err, tc.nemesis)
		}
	}
	os.WriteFile(filepath.Join(dir, "empty.yaml"), nil, 0o644)
	if c, err := config.LoadPlan(filepath.Join(dir, "empty.yaml")); err != nil || !reflect.DeepEqual(c, config.Config{}) {
		t.Errorf("empty plan: %+v, %v", c, err)
	}
}
