package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/redis/go-redis/v9"
)

// opTimeout is how long a test op through a faulted link may take before
// it counts as not reaching the node.
const opTimeout = 300 * time.Millisecond

// startCluster starts a local cluster for a test.
func startCluster(t *testing.T, nodes int, clients ...string) *local.Cluster {
	t.Helper()
	return clustertest.StartWith(t, clustertest.Options{Nodes: nodes, Clients: clients, SkipIfMissing: true})
}

// set runs a SET with a short deadline.
func set(rdb *redis.Client, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return rdb.Set(ctx, key, "v", 0).Err()
}

// reachable says whether a fresh connection from client cl reaches node.
func reachable(t *testing.T, c cluster.Cluster, cl, node string) bool {
	t.Helper()
	return set(clustertest.Dial(t, c, cl, node, opTimeout), "probe") == nil
}

func topo3(clients ...string) Topology {
	return Topology{Nodes: []string{"n1", "n2", "n3"}, Clients: clients, TTL: time.Second}
}

// draws draws count faults from n, with the source a seed stands for.
func draws(n Nemesis, seed uint64, tp Topology, count int) []Fault {
	r := NewRand(seed)
	out := make([]Fault, count)
	for i := range out {
		out[i] = n.Draw(r, tp)
	}
	return out
}

// blocked fails the test if the op whose result done carries completes
// within wait: it was sent during a fault that holds it.
func blocked(t *testing.T, done <-chan error, wait time.Duration, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s completed during the fault (err %v)", what, err)
	case <-time.After(wait):
	}
}

// completes fails the test unless the op whose result done carries
// succeeds within 5 s: the fault that held it has stopped.
func completes(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s after the fault: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not complete after the fault", what)
	}
}
