package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// recordsOf is res's whole history read into memory (a test run is
// short), whether the run kept it or left it in history.jsonl.
func recordsOf(t testing.TB, res *analysis.Result) history.History {
	t.Helper()
	h, err := history.ReadAll(res.History)
	clustertest.Must(t, err)
	return h
}

func count(h history.History, f string, t history.Type) int {
	n := 0
	for _, op := range h {
		if op.F == f && op.Type == t {
			n++
		}
	}
	return n
}

// Each workload runs 3 s against single with no faults: its verdict is
// valid, and it leaves a well-formed history on disk that matches the one
// in memory.
func TestWorkloadsProduceWellFormedHistories(t *testing.T) {
	store := t.TempDir()
	for _, w := range []string{"counter", "cron", "api", "leader"} {
		t.Run(w, func(t *testing.T) {
			res := storetest.Run(t, Run, config.Config{Lock: "single", Workload: w, Clients: 3,
				TTL: 300 * time.Millisecond, TimeLimit: 3 * time.Second, Seed: 7, Store: store})
			h := recordsOf(t, res)
			if err := checker.Validate(h); err != nil {
				t.Fatalf("history not well-formed: %v", err)
			}
			if res.Verdict.Valid != checker.Valid {
				t.Fatalf("a correct lock without faults: verdict %s", res.Verdict)
			}
			onDisk, warns, err := history.ReadFile(filepath.Join(res.Dir, "history.jsonl"))
			if err != nil || len(warns) > 0 || len(onDisk) != len(h) {
				t.Fatalf("history.jsonl: %d records, %v, %v; memory has %d", len(onDisk), warns, err, len(h))
			}
			if n := count(h, history.FAcquire, history.OK); n < 3 {
				t.Fatalf("only %d successful acquires in 3 s", n)
			}
			want := map[string]string{"counter": history.FWrite, "cron": history.FRun, "api": history.FEnter, "leader": history.FLead}[w]
			if count(h, want, history.OK) == 0 {
				t.Fatalf("no successful %s", want)
			}
			if _, err := os.Stat(filepath.Join(res.Dir, "test.json")); err != nil {
				t.Fatal(err)
			}
		})
	}
}
