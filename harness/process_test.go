package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// holderPauses pauses whoever holds the lock for d, three times.
func holderPauses(ttl, d time.Duration) *nemesis.Plan {
	var steps []nemesis.Step
	for i := 0; i < 3; i++ {
		at := time.Second + time.Duration(i)*(d+ttl+500*time.Millisecond)
		steps = append(steps, nemesis.Step{At: at, Duration: d,
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}})
	}
	p := nemesis.Scripted(2*time.Second, steps...)
	return &p
}

// logOf is the run's lockstorm.log.
func logOf(t *testing.T, res *analysis.Result) string {
	t.Helper()
	return storetest.Read(t, res.Dir, store.LogFile)
}

// `--client-cmd "lockstorm client --lock single"` gives the verdicts of
// `--lock single`: valid without faults; under holder pauses of 2 x TTL
// without fencing, invalid by the resource checker with the lock checker
// valid (catalogue row 4), in both pause models' hands.
func TestClientCmdSameVerdictsAsInProcess(t *testing.T) {
	store := t.TempDir()
	ttl := 500 * time.Millisecond
	for _, tc := range []struct {
		name string
		plan *nemesis.Plan
		want checker.Validity
	}{{"no-faults", nil, checker.Valid}, {"holder-pauses", holderPauses(ttl, 2*ttl), checker.Invalid}} {
		for _, cmd := range []string{"", "lockstorm client --lock single"} {
			t.Run(tc.name+"/"+map[bool]string{true: "in-process", false: "process"}[cmd == ""], func(t *testing.T) {
				cfg := config.Config{Lock: "single", ClientCmd: cmd, Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl,
					TimeLimit: 4 * time.Second, Seed: 5, Store: store, Plan: tc.plan}
				if tc.plan != nil {
					cfg.TimeLimit = tc.plan.End
				}
				res := storetest.Run(t, Run, cfg)
				if n := count(recordsOf(t, res), history.FWrite, history.OK); n < 3 {
					t.Fatalf("only %d writes: the run did no work to judge", n)
				}
				if res.Verdict.Valid != tc.want {
					t.Fatalf("verdict %v, want %v:\n%s", res.Verdict.Valid, tc.want, res.Verdict)
				}
				if tc.want == checker.Invalid {
					for _, r := range res.Verdict.Results {
						if r.Name == "lock" && r.Valid != checker.Valid {
							t.Errorf("lock checker %v, want valid (the lock held; the resource did not)", r.Valid)
						}
					}
				}
				wantModel := config.PauseLinks
				if cmd != "" {
					wantModel = config.PauseProcess
					if log := logOf(t, res); !strings.Contains(log, "is pid") {
						t.Errorf("log names no client pid:\n%s", log)
					}
				}
				if res.Config.PauseModel != wantModel {
					t.Errorf("pause model %q, want %q", res.Config.PauseModel, wantModel)
				}
			})
		}
	}
}

// A client crash of a process client kills its process (SIGKILL) and a
// new process, with a new pid and a new history process id, takes the
// slot and goes on acquiring.
func TestProcessClientCrash(t *testing.T) {
	ttl := 400 * time.Millisecond
	p := nemesis.Scripted(2*time.Second, nemesis.Step{At: time.Second, Duration: ttl,
		Fault: nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{"c1"}}})
	res := storetest.Run(t, Run, config.Config{Lock: "single", ClientCmd: "lockstorm client --lock single", Workload: "counter",
		Nodes: 1, Clients: 2, TTL: ttl, TimeLimit: p.End, Seed: 3, Store: t.TempDir(), Plan: &p})
	log := logOf(t, res)
	if !strings.Contains(log, "client c1: pid") || !strings.Contains(log, "killed (SIGKILL)") {
		t.Fatalf("log does not show c1's process killed:\n%s", log)
	}
	if n := strings.Count(log, "client c1: process "); n < 2 {
		t.Fatalf("c1 started %d processes, want a second after the crash:\n%s", n, log)
	}
	procs := map[int]bool{}
	for _, op := range recordsOf(t, res) {
		if op.Client == "c1" && op.F == history.FAcquire && op.Type == history.OK {
			procs[op.Process] = true
		}
	}
	if len(procs) < 2 {
		t.Fatalf("c1 acquired as %d history processes, want a new one after the crash", len(procs))
	}
}

// A client that breaks the protocol (here: garbage after its first
// answer) has its op recorded as info, is logged, and is replaced by a
// new process; the run still ends on time.
func TestBrokenProcessClientReplaced(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "garbage.sh")
	// Answers the first request ok with a token, then writes garbage.
	body := "#!/bin/sh\nread line\nid=$(echo \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n" +
		"echo \"{\\\"id\\\":$id,\\\"type\\\":\\\"ok\\\",\\\"token\\\":\\\"t$$\\\",\\\"validity_ms\\\":100}\"\n" +
		"read line\necho 'this is not json'\nsleep 5\n"
	clustertest.Must(t, os.WriteFile(script, []byte(body), 0o755))
	start := time.Now()
	res := storetest.Run(t, Run, config.Config{Lock: "single", ClientCmd: "/bin/sh " + script, Workload: "counter",
		Nodes: 1, Clients: 1, TTL: 300 * time.Millisecond, TimeLimit: 2 * time.Second, Seed: 9, Store: t.TempDir()})
	if el := time.Since(start); el > 30*time.Second {
		t.Fatalf("run took %v", el)
	}
	if h := recordsOf(t, res); count(h, history.FRelease, history.Info)+count(h, history.FRead, history.Info)+
		count(h, history.FAcquire, history.Info) == 0 {
		t.Fatal("no op of the broken client was recorded as unknown (info)")
	}
	log := logOf(t, res)
	if !strings.Contains(log, "malformed") {
		t.Fatalf("log does not say the line was malformed:\n%s", log)
	}
	if n := strings.Count(log, "client c1: process "); n < 2 {
		t.Fatalf("the broken client was not replaced (%d processes):\n%s", n, log)
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string]string{
		`lockstorm client --lock single`:    "lockstorm|client|--lock|single",
		`python3 'my client.py' "a b" c\ d`: "python3|my client.py|a b|c d",
		`  x  `:                             "x",
	} {
		got, err := config.SplitCommand(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", `a 'b`, `a "b`, `a\`} {
		if _, err := config.SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}
