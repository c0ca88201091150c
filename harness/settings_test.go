package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// parseRun parses a `lockstorm run` command line's settings (and
// --config) as the CLI does.
func parseRun(t *testing.T, args []string) (Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var flags Config
	var plan string
	AddFlags(fs, &flags)
	fs.StringVar(&plan, "config", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return CommandLine(flags, fs.Changed, plan)
}

// The replay command carries every setting that changed the run: parsed
// back, it gives the same configuration, all but where the run is stored
// and what is kept after it.
func TestReplayArgsRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{},
		{Lock: "redlock", Nemesis: []string{"partition", "crash"}, Seed: 42, Persistence: "aof-always"},
		{Lock: "fenced", Fencing: true, Nemesis: []string{"client-pause"}, TTL: 500 * time.Millisecond, RenewEvery: 100 * time.Millisecond,
			MinCoverage: -1, TargetHolder: 0.5, Clients: 7, TimeLimit: 9 * time.Second, FaultInterval: time.Second, Seed: 7, Workload: "cron"},
		{Provider: "docker", DockerImage: "lockstorm/redis:7", Seed: 3, MinCoverage: 4, TargetHolder: -1},
		{Provider: "external", External: External{RedisAddrs: []string{"127.0.0.1:6379", "127.0.0.1:6380"}, Toxiproxy: "127.0.0.1:8474",
			ListenHost: "10.0.0.1", PasswordEnv: "PW", TLS: true, AllowNonLoopback: true}, Seed: 9},
	} {
		want, err := c.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		args := ReplayArgs(want)
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
	c, _ := Config{Name: "mine", Store: "/tmp/x", KeepClusterDir: true, Seed: 1}.WithDefaults()
	line := strings.Join(ReplayArgs(c), " ")
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
	want := Config{Lock: "redlock", Nodes: 7, TTL: 400 * time.Millisecond, Nemesis: []string{"partition"}, MinCoverage: -1,
		Clients: 2, TargetHolder: -1, External: External{RedisAddrs: []string{"a:1", "b:2"}}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	c, err = parseRun(t, []string{"--nemesis", "partition,crash", "--ttl", "2s"})
	if err != nil || c.Lock != "single" || c.TTL != 2*time.Second || len(c.Nemesis) != 2 || c.Clients != 4 {
		t.Errorf("without a plan: %+v, %v", c, err)
	}
}

// A plan's unknown key, repeated key, wrong type or bad duration is
// refused, naming it.
func TestPlanRefusesBadKeys(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"lok: single\n", "line 1: field lok not found (allowed fields: allow-non-loopback, clients,"},
		{"lock: single\nlock: fair\n", `line 2: mapping key "lock" already defined at line 1`},
		{"nodes: many\n", "line 1: cannot unmarshal !!str `many` into int"},
		{"ttl: soon\n", "ttl must be a duration like 1s or 300ms, got \"soon\""},
		{"- lock\n", "a plan is a mapping"},
		{"lock: [\n", "yaml:"},
	} {
		p := filepath.Join(dir, "plan.yaml")
		os.WriteFile(p, []byte(tc.yaml), 0o644)
		if _, err := LoadPlan(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("plan %q: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
	os.WriteFile(filepath.Join(dir, "empty.yaml"), nil, 0o644)
	if c, err := LoadPlan(filepath.Join(dir, "empty.yaml")); err != nil || !reflect.DeepEqual(c, Config{}) {
		t.Errorf("empty plan: %+v, %v", c, err)
	}
}
