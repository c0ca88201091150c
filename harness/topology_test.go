package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// The fenced lock with a fencing resource on a real 3-master Redis Cluster
// under partitions and latency is valid, on the hash-tagged key, and its
// leases name the cluster as their node.
func TestClusterTopologyFencedValid(t *testing.T) {
	res := storetest.Run(t, Run, config.Config{Lock: "fenced", Fencing: true, Topology: config.TopologyCluster,
		Workload: "counter", Clients: 3, TTL: 500 * time.Millisecond, Nemesis: []string{"partition", "latency"},
		FaultInterval: time.Second, TimeLimit: 8 * time.Second, Seed: 4, Store: t.TempDir()})
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("verdict %v:\n%s", res.Verdict.Valid, res.Verdict)
	}
	acquired := 0
	for _, op := range recordsOf(t, res) {
		if op.F == history.FAcquire && op.Type == history.OK {
			acquired++
			if op.Key != config.ClusterKey || len(op.Nodes) != 1 || op.Nodes[0] != clusterNode {
				t.Fatalf("acquire on key %q granted by %v, want %q by %q", op.Key, op.Nodes, config.ClusterKey, clusterNode)
			}
		}
	}
	if acquired < 5 {
		t.Fatalf("only %d acquires: the run did no work to judge", acquired)
	}
}

// A lock whose keys span hash slots is refused before its workload
// starts, naming the keys and their slots (TestBadConfigStartsNothing
// has the locks refused before anything runs).
func TestClusterTopologyRefusals(t *testing.T) {
	_, err := Run(context.Background(), config.Config{Lock: "unsafe-crossslot", Topology: config.TopologyCluster,
		TimeLimit: 3 * time.Second, Store: t.TempDir()})
	if !errors.Is(err, config.ErrConfig) || !errors.Is(err, lockimpl.ErrCrossSlot) && !strings.Contains(err.Error(), "slot") {
		t.Fatalf("unsafe-crossslot on a cluster: err %v, want ErrConfig naming the slots", err)
	}
	if !strings.Contains(err.Error(), "fence_counter:") || !strings.Contains(err.Error(), config.ClusterKey) {
		t.Errorf("the error names not both keys: %v", err)
	}
}
