package harness

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// Under a correct lock the cron, api and leader workloads get a valid
// verdict, not only a well-formed history: on one node without faults,
// and on 3 Redlock nodes under partitions, which Redlock survives (a
// client cut from a majority cannot acquire; nobody holds it twice).
// Each run must do its workload's work (runs, entries, heartbeats) so a
// valid verdict is not a vacuous one.
func TestCronAPILeaderValidUnderCorrectLock(t *testing.T) {
	store := t.TempDir()
	work := map[string]string{"cron": history.FRun, "api": history.FEnter, "leader": history.FLead}
	for _, tc := range []struct {
		lock    string
		nodes   int
		nemesis []string
	}{{"single", 1, nil}, {"redlock", 3, []string{"partition"}}} {
		for _, w := range []string{"cron", "api", "leader"} {
			t.Run(w+"/"+tc.lock, func(t *testing.T) {
				res := storetest.Run(t, Run, config.Config{Lock: tc.lock, Nodes: tc.nodes, Workload: w, Clients: 3,
					TTL: 300 * time.Millisecond, Nemesis: tc.nemesis, FaultInterval: 700 * time.Millisecond,
					TimeLimit: 4 * time.Second, Seed: 11, Store: store})
				if n := count(recordsOf(t, res), work[w], history.OK); n < 2 {
					t.Fatalf("only %d successful %s: the run did no work to judge", n, work[w])
				}
				if tc.nemesis != nil {
					checkFaults(t, recordsOf(t, res))
				}
				if res.Verdict.Valid != checker.Valid {
					t.Fatalf("%s under %s %v: verdict %v:\n%s", w, tc.lock, tc.nemesis, res.Verdict.Valid, res.Verdict)
				}
			})
		}
	}
}
