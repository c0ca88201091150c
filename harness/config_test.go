package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

func customLock(c []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
	return lockimpl.NewSingle(c[0], opt), nil
}

// Configurations refused with an error naming the field, and what the
// accepted ones become.
func TestConfigRefusesAndSwitches(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // error text; empty: accepted
	}{
		{"custom lock without Nodes", Config{NewLock: customLock}, "Nodes must be set"},
		{"custom lock named like a built-in, without Nodes", Config{Lock: "redlock", NewLock: customLock}, "Nodes must be set"},
		{"redlock on 2 nodes", Config{Lock: "redlock", Nodes: 2}, "--nodes must be at least 3 for redlock"},
		{"redsync on 1 node", Config{Lock: "redsync", Nodes: 1}, "--nodes must be at least 3"},
		{"none with a fault", Config{Nemesis: []string{"none", "partition"}}, "--nemesis none means no faults"},
		{"drift factor above one half", Config{DriftFactor: 0.6}, "DriftFactor below 0.5"},
		{"custom redlock on 2 nodes is the user's call", Config{NewLock: customLock, Nodes: 2}, ""},
		{"redlock default", Config{Lock: "redlock"}, ""},
		{"none alone", Config{Nemesis: []string{"none"}}, ""},
	} {
		got, err := tc.cfg.WithDefaults()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v (config %+v), want an ErrConfig with %q", tc.name, err, got, tc.want)
		}
	}
	c, _ := Config{Nemesis: []string{"none"}}.WithDefaults()
	if len(c.Nemesis) != 0 {
		t.Errorf("--nemesis none left %v", c.Nemesis)
	}
	c, _ = Config{Lock: "redlock"}.WithDefaults()
	if c.Nodes != 5 {
		t.Errorf("redlock defaults to %d nodes", c.Nodes)
	}
	// Fair: from the name for built-in locks, only from the field for custom ones.
	for _, tc := range []struct {
		cfg  Config
		fair bool
	}{
		{Config{Lock: "fair"}, true},
		{Config{Lock: "fair-naive"}, true},
		{Config{Lock: "single"}, false},
		{Config{Lock: "fair", NewLock: customLock, Nodes: 1}, false},
		{Config{NewLock: customLock, Nodes: 1, Fair: true}, true},
	} {
		c, err := tc.cfg.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		var lv *checker.Liveness
		for _, ch := range Checkers(&Result{Config: c}).Checkers {
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
		cfg   Config
		given func(string) bool
		want  string
	}{
		{Config{}, given("ttl"), "--ttl must be"},
		{Config{}, given("nodes"), "--nodes must be 1..15"},
		{Config{}, given("clients"), "--clients must be 1..64"},
		{Config{}, given("time-limit"), "--time-limit must be"},
		{Config{Lock: "single", Fencing: true}, nil, "--fencing needs a lock that issues fencing tokens"},
		{Config{Lock: "redlock", Fencing: true}, nil, "redlock issues none"},
		{Config{Fencing: true}, nil, "single issues none"},
		{Config{}, nil, ""},
		{Config{TTL: time.Second}, given("ttl"), ""},
		{Config{Lock: "fenced", Fencing: true}, nil, ""},
		{Config{NewLock: customLock, Fencing: true}, nil, ""}, // unknowable before the run
	} {
		err := tc.cfg.CheckGiven(tc.given)
		if (tc.want == "") != (err == nil) || err != nil && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// Config.Drift reaches the lock checker: a takeover 15 ms before the
// first lease's TTL is up is a violation under the default allowance
// (2 ms + 1%), and allowed with 30 ms of drift.
func TestDriftReachesLockChecker(t *testing.T) {
	ttl := int64(time.Second)
	h := history.History{
		{Index: 0, Time: 0, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: ttl},
		{Index: 1, Time: 1e6, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "a", TTL: ttl, Validity: 900e6},
		{Index: 2, Time: 980e6, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k", TTL: ttl},
		{Index: 3, Time: 985e6, Type: history.OK, Process: 1, F: history.FAcquire, Key: "k", Token: "b", TTL: ttl, Validity: 1900e6},
		{Index: 4, Time: 990e6, Type: history.Invoke, Process: 1, F: history.FRelease, Key: "k", Token: "b"},
		{Index: 5, Time: 991e6, Type: history.OK, Process: 1, F: history.FRelease, Key: "k", Token: "b"},
	}
	lockVerdict := func(drift time.Duration) checker.Validity {
		cfg, err := Config{Lock: "single", Drift: drift, SkipRecoveryCheck: true}.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		v := Checkers(&Result{Config: cfg, History: h}).Check(context.Background(), h)
		for _, r := range v.Results {
			if r.Name == "lock" {
				return r.Valid
			}
		}
		t.Fatalf("no lock checker result in %s", v)
		return checker.Unknown
	}
	if v := lockVerdict(0); v != checker.Invalid {
		t.Errorf("default drift: lock checker says %v, want invalid", v)
	}
	if v := lockVerdict(30 * time.Millisecond); v != checker.Valid {
		t.Errorf("30ms drift: lock checker says %v, want valid", v)
	}
}

// A plan key written as 0 is refused like the flag; a key left out takes
// the default.
func TestPlanRefusesExplicitZero(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"nodes: 0\n", "--nodes must be 1..15"},
		{"ttl: 0s\n", "--ttl must be"},
		{"clients: 0\n", "--clients must be"},
		{"time-limit: 0s\n", "--time-limit must be"},
		{"lock: single\nfencing: true\n", "--fencing needs"},
		{"fencing: true\n", "single issues none"}, // the default lock
		{"lock: fenced\nfencing: true\n", ""},
		{"lock: single\n", ""},
	} {
		p := filepath.Join(dir, "plan.yaml")
		if err := os.WriteFile(p, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPlan(p)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("plan %q: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
