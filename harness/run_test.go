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

// Under a correct lock each workload gets a valid verdict and leaves a
// well-formed history on disk that matches the one in memory: on one node
// without faults, and (cron, api, leader) on 3 Redlock nodes under
// partitions, which Redlock survives (a client cut from a majority cannot
// acquire; nobody holds it twice). Each run must do its workload's work
// (writes, runs, entries, heartbeats) so a valid verdict is not a vacuous one.
func TestWorkloadsValidUnderCorrectLock(t *testing.T) {
	store := t.TempDir()
	work := map[string]string{"counter": history.FWrite, "cron": history.FRun, "api": history.FEnter, "leader": history.FLead}
	for _, tc := range []struct {
		lock      string
		nodes     int
		nemesis   []string
		workloads []string
	}{{"single", 1, nil, []string{"counter", "cron", "api", "leader"}}, {"redlock", 3, []string{"partition"}, []string{"cron", "api", "leader"}}} {
		for _, w := range tc.workloads {
			t.Run(w+"/"+tc.lock, func(t *testing.T) {
				res := storetest.Run(t, Run, config.Config{Lock: tc.lock, Nodes: tc.nodes, Workload: w, Clients: 3,
					TTL: 300 * time.Millisecond, Nemesis: tc.nemesis, FaultInterval: 700 * time.Millisecond,
					TimeLimit: 4 * time.Second, Seed: 11, Store: store})
				h := recordsOf(t, res)
				if err := checker.Validate(h); err != nil {
					t.Fatalf("history not well-formed: %v", err)
				}
				if v := res.Verdict; v.Valid != checker.Valid && !livenessUnknownOnly(v) {
					t.Fatalf("verdict %v:\n%s", v.Valid, v)
				}
				onDisk, warns, err := history.ReadFile(filepath.Join(res.Dir, "history.jsonl"))
				if err != nil || len(warns) > 0 || len(onDisk) != len(h) {
					t.Fatalf("history.jsonl: %d records, %v, %v; memory has %d", len(onDisk), warns, err, len(h))
				}
				if n := count(h, history.FAcquire, history.OK); n < 3 {
					t.Fatalf("only %d successful acquires", n)
				}
				if n := count(h, work[w], history.OK); n < 2 {
					t.Fatalf("only %d successful %s: the run did no work to judge", n, work[w])
				}
				if tc.nemesis != nil {
					checkFaults(t, h)
				}
				if _, err := os.Stat(filepath.Join(res.Dir, "test.json")); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// livenessUnknownOnly: v is Unknown only because liveness is. A final heal
// that comes late in a short run on a loaded machine leaves less than the
// recovery grace to see the lock taken again; every other part must hold.
func livenessUnknownOnly(v checker.Result) bool {
	unknown := false
	for _, r := range v.Results {
		switch {
		case r.Valid == checker.Valid:
		case r.Name == "liveness" && r.Valid == checker.Unknown:
			unknown = true
		default:
			return false
		}
	}
	return unknown && v.Valid == checker.Unknown
}
