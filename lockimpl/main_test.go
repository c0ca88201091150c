package lockimpl

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/redis/go-redis/v9"
)

// One local cluster for the whole package: 5 redis-server nodes, four
// clients, every client link through its own toxiproxy proxy. Tests run
// one at a time, use their own keys and heal every fault when they end.
var (
	testCluster *local.Cluster
	testClients = []string{"c1", "c2", "c3", "c4"}
	keySeq      atomic.Int64
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: 5, Clients: testClients})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockimpl tests: start cluster:", err)
		os.Exit(2)
	}
	testCluster = c
	code := m.Run()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "lockimpl tests: stop cluster:", err)
	}
	os.Exit(code)
}

// heal removes every fault when the test ends.
func heal(t testing.TB) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := testCluster.HealAll(ctx); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
}

// testKey is a fresh lock key for the test.
func testKey(t testing.TB) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), keySeq.Add(1))
}

// proxied returns one go-redis client per node for a named client, each
// through that client's proxy to the node; closed when the test ends.
func proxied(t testing.TB, client string, nodes int) []redis.UniversalClient {
	t.Helper()
	out := make([]redis.UniversalClient, nodes)
	for i := range nodes {
		addr, err := testCluster.Addr(client, fmt.Sprintf("n%d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(addr)
		t.Cleanup(func() { c.Close() })
		out[i] = c
	}
	return out
}

// admin returns a direct client to a node (no proxy) for inspection.
func admin(t testing.TB, node string) *redis.Client {
	t.Helper()
	addr, err := testCluster.AdminAddr(node)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(addr)
	t.Cleanup(func() { c.Close() })
	return c
}

// nodesFor is how many nodes the named lock uses in these tests.
func nodesFor(name string) int {
	if MultiNode(name) {
		return 5
	}
	return 1
}

// newLock builds the named lock for a client.
func newLock(t testing.TB, name, client string, opt Options) Locker {
	t.Helper()
	l, err := New(name, proxied(t, client, nodesFor(name)), opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// correct lists the locks that must provide mutual exclusion.
var correct = []string{nameSingle, nameRenewable, nameRedlock, nameFair, nameFenced, nameFencedRedlock, nameRedsync, nameRedislock}

// getKey reads a key on a node directly ("" when absent).
func getKey(t testing.TB, node, key string) string {
	t.Helper()
	v, err := admin(t, node).Get(context.Background(), key).Result()
	if err == redis.Nil {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}
