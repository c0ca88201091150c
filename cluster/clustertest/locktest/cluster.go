// Package locktest is the test bench of the locks, shared by the tests of
// lockimpl and lockimpl/adapters: one local cluster per test binary (5
// redis-server nodes, 4 clients, every client link through its own
// toxiproxy proxy), helpers to reach it, and the contract tests every
// correct lock must pass. Test code only.
package locktest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// Nodes is the number of nodes of the cluster (n1..n5).
const Nodes = 5

var (
	// Cluster is the test binary's cluster, started by Main. Tests run one
	// at a time, use their own keys (Key) and heal every fault they cause
	// (Heal).
	Cluster *local.Cluster
	// Clients are the cluster's client names, each with its own proxies.
	Clients = []string{"c1", "c2", "c3", "c4"}
	keySeq  atomic.Int64
)

// Main is a test binary's TestMain: it starts the cluster, runs the tests,
// stops the cluster (and the Redis Cluster, if a test started it) and
// exits with the tests' code, failing the run if a redis-server child or
// a run directory was left behind. pkg names the package in messages.
func Main(m *testing.M, pkg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: Nodes, Clients: Clients})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, pkg, "tests: start cluster:", err)
		os.Exit(2)
	}
	Cluster = c
	code := m.Run()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, pkg, "tests: stop cluster:", err)
	}
	if err := stopSharedRedisCluster(); err != nil {
		fmt.Fprintln(os.Stderr, pkg, "tests: stop redis cluster:", err)
	}
	if left := clustertest.Leftovers(); left != "" {
		fmt.Fprintln(os.Stderr, "FAIL:", pkg, "tests left behind:\n"+left)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Heal removes every fault when the test ends.
func Heal(t testing.TB) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := Cluster.HealAll(ctx); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
}

// Key is a fresh lock key for the test.
func Key(t testing.TB) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), keySeq.Add(1))
}

// Proxied returns one go-redis client per node (n1..nN) for a named
// client, each through that client's proxy to the node; closed when the
// test ends.
func Proxied(t testing.TB, client string, nodes int) []redis.UniversalClient {
	return connect(t, nodes, func(node string) (string, error) { return Cluster.Addr(client, node) })
}

// Direct returns one client per node (n1..nN) bypassing the proxies.
func Direct(t testing.TB, nodes int) []redis.UniversalClient {
	return connect(t, nodes, Cluster.AdminAddr)
}

// Admin returns a direct client to a node (no proxy) for inspection.
func Admin(t testing.TB, node string) *redis.Client {
	t.Helper()
	addr, err := Cluster.AdminAddr(node)
	if err != nil {
		t.Fatal(err)
	}
	c := lockimpl.NewClient(addr)
	t.Cleanup(func() { c.Close() })
	return c
}

// connect returns a client per node n1..nN at the address addr gives.
func connect(t testing.TB, nodes int, addr func(node string) (string, error)) []redis.UniversalClient {
	t.Helper()
	out := make([]redis.UniversalClient, nodes)
	for i := range nodes {
		a, err := addr(nodeName(i))
		if err != nil {
			t.Fatal(err)
		}
		c := lockimpl.NewClient(a)
		t.Cleanup(func() { c.Close() })
		out[i] = c
	}
	return out
}

// nodeName is the name of node i (from 0): "n1", ...
func nodeName(i int) string { return fmt.Sprintf("n%d", i+1) }

// Get reads a key on a node directly ("" when absent).
func Get(t testing.TB, node, key string) string {
	t.Helper()
	v, err := Admin(t, node).Get(context.Background(), key).Result()
	if err == redis.Nil {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// NodesFor is how many nodes the named lock uses in these tests: all of
// them for a multi-node lock, else one.
func NodesFor(name string) int {
	if lockimpl.MultiNode(name) {
		return Nodes
	}
	return 1
}

// LoadedNodeTimeout bounds one command in the short-TTL tests (TTL of
// 100-150 ms). The default, TTL/10 (15 ms at a 150 ms TTL), is shorter than
// a scheduling hiccup on a loaded 2-core CI machine: an acquire then ends
// unknown on an i/o timeout and the test fails for a reason that is not
// the lock's.
const LoadedNodeTimeout = 60 * time.Millisecond

// NewLock builds the named lock (lockimpl.New) for a client.
func NewLock(t testing.TB, name, client string, opt lockimpl.Options) lockimpl.Locker {
	t.Helper()
	l, err := lockimpl.New(name, Proxied(t, client, NodesFor(name)), opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// ForEach runs f as one subtest per lock name, with a fresh key; the
// faults a subtest causes are healed when it ends.
func ForEach(t *testing.T, names []string, f func(t *testing.T, name, key string)) {
	Heal(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			Heal(t)
			f(t, name, Key(t))
		})
	}
}
