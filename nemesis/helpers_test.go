package nemesis

import (
	"context"
	"math/rand/v2"
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

// client connects a client to a node through its proxy, with short
// timeouts and no retries, so that a faulted link shows as an error.
func client(t *testing.T, c cluster.Cluster, cl, node string) *redis.Client {
	t.Helper()
	addr, err := c.Addr(cl, node)
	if err != nil {
		t.Fatal(err)
	}
	return newRedis(t, addr)
}

// admin connects to a node directly, bypassing the proxies.
func admin(t *testing.T, c cluster.Cluster, node string) *redis.Client {
	t.Helper()
	addr, err := c.AdminAddr(node)
	if err != nil {
		t.Fatal(err)
	}
	return newRedis(t, addr)
}

func newRedis(t *testing.T, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{
		Addr: addr, DialTimeout: opTimeout, ReadTimeout: opTimeout, WriteTimeout: opTimeout,
		MaxRetries: -1, PoolSize: 2, DisableIdentity: true,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
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
	return set(client(t, c, cl, node), "probe") == nil
}

func seeded(seed uint64) *rand.Rand { return NewRand(seed) }

func topo3(clients ...string) Topology {
	return Topology{Nodes: []string{"n1", "n2", "n3"}, Clients: clients, TTL: time.Second}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newRedisSlow connects like client but with long timeouts, for ops that
// are meant to wait out a fault.
func newRedisSlow(t *testing.T, c cluster.Cluster, cl, node string) *redis.Client {
	t.Helper()
	addr, err := c.Addr(cl, node)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 10 * time.Second, MaxRetries: -1,
		PoolSize: 1, DisableIdentity: true})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// draws draws count faults from n, with the source a seed stands for.
func draws(n Nemesis, seed uint64, tp Topology, count int) []Fault {
	r := seeded(seed)
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
