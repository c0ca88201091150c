package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Every workload under every fault kind, briefly, with a lock that should
// survive it (or, for failover, a lock the catalogue shows it breaking): the run completes, heals, records a well-formed history
// whose faults all applied, and the verdict is never unknown for a
// checker failure or timeout. Long (about 3 minutes): skipped with -short.
func TestWorkloadFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("long matrix of workloads x faults; run without -short (make test-long)")
	}
	store := t.TempDir()
	for _, w := range []string{"counter", "cron", "api", "leader"} {
		for _, k := range nemesis.Kinds {
			t.Run(w+"/"+k, func(t *testing.T) {
				lock, nodes, limit := "fenced", 1, 3*time.Second
				if k == nemesis.KindFailover {
					limit = 8 * time.Second // detection plus sentinel's promotion take ~3 s
				}
				switch k {
				case nemesis.KindPartition, nemesis.KindLatency, nemesis.KindServerPause, nemesis.KindCrash:
					lock, nodes = "redlock", 3
				}
				res, err := Run(context.Background(), Config{Lock: lock, Nodes: nodes, Workload: w, Clients: 3,
					TTL: 300 * time.Millisecond, Nemesis: []string{k}, FaultInterval: 600 * time.Millisecond,
					Fencing: true, Persistence: "aof-always", TimeLimit: limit, Seed: 9, Store: store})
				if err != nil {
					t.Fatal(err)
				}
				if err := checker.Validate(res.History); err != nil {
					t.Fatalf("history not well-formed: %v", err)
				}
				starts := 0
				for _, op := range res.History {
					if op.IsNemesis() && op.Type == history.Info {
						t.Errorf("fault %s %s did not apply: %s", op.F, op.Fault, op.Error)
					}
					if op.IsNemesis() && op.F == history.FStart && op.Type == history.OK {
						starts++
					}
				}
				if starts == 0 {
					t.Error("no fault started")
				}
				for _, r := range res.Verdict.Results {
					if r.Valid == checker.Unknown && r.Error != "" && !strings.Contains(r.Error, "no successful acquire") {
						t.Errorf("checker %s unknown: %s", r.Name, r.Error)
					}
				}
				t.Log(fmt.Sprintf("%s: %d records, verdict %s", res.Dir, len(res.History), res.Verdict.Valid))
			})
		}
	}
}
