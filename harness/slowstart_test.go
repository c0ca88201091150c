package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Client processes that take 1.5 s to start (an interpreter on a loaded
// machine) take no time from the run: the history's clock starts when
// every client is ready, so the first acquire comes at once and the
// fault planned at 600 ms, aimed at the holder, still finds one. Before,
// the clock ran from before the processes started, the first acquire came
// at 1.5 s and the fault had been due long before.
func TestSlowClientStartTakesNoTimeFromTheRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow-client")
	clustertest.Must(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep 1.5\nexec lockstorm client --lock single \"$@\"\n"), 0o755))
	ttl := 300 * time.Millisecond
	p := nemesis.Scripted(time.Second, nemesis.Step{At: 600 * time.Millisecond, Duration: ttl,
		Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}})
	res := storetest.Run(t, Run, config.Config{Lock: "single", ClientCmd: script, Workload: "counter",
		Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: p.End, Seed: 2, Store: t.TempDir(), Plan: &p})
	var first, fault int64 = -1, -1
	for _, op := range recordsOf(t, res) {
		if first < 0 && op.F == history.FAcquire && op.Type == history.OK {
			first = op.Time
		}
		if fault < 0 && op.IsNemesis() && op.Type == history.Invoke {
			fault = op.Time
		}
	}
	if first < 0 || time.Duration(first) > 500*time.Millisecond {
		t.Fatalf("first acquire at %v, want within 500 ms of the history's zero:\n%s", time.Duration(first), logOf(t, res))
	}
	if fault < 0 || time.Duration(fault) > time.Second {
		t.Fatalf("fault started at %v, want about 600 ms:\n%s", time.Duration(fault), logOf(t, res))
	}
	if res.Verdict.Valid == checker.Unknown {
		t.Fatalf("verdict unknown: %s\n%s", res.Verdict, logOf(t, res))
	}
}
