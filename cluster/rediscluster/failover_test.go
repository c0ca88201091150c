package rediscluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// roles asserts that master owns the slot and replica follows it.
func roles(t *testing.T, c *rediscluster.Cluster, ctx context.Context, slot int, master, replica string) {
	t.Helper()
	clustertest.Must(t, c.WaitHealthy(ctx))
	s, err := c.State(ctx)
	clustertest.Must(t, err)
	if o := s.Owner(slot); o != master {
		t.Errorf("slot %d owner %s, want %s", slot, o, master)
	}
	if r, _ := s.Node(replica); r.Role != rediscluster.RoleReplica || r.Following != master {
		t.Errorf("%s: role %s of %q, want a replica of %s", replica, r.Role, r.Following, master)
	}
}

func TestFailoverSwapsRoles(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 30*time.Second)
	slot := 0 // n1's
	for _, f := range []struct{ replica, mode, master string }{
		{"n1r", rediscluster.FailoverCoordinated, "n1"},
		{"n1", rediscluster.FailoverForce, "n1r"},
		{"n1r", rediscluster.FailoverTakeover, "n1"},
	} {
		begin := time.Now()
		clustertest.Must(t, c.Failover(ctx, f.replica, f.mode))
		took := time.Since(begin)
		roles(t, c, ctx, slot, f.replica, f.master)
		t.Logf("failover %q of %s: promoted in %v, healthy after %v", f.mode, f.replica,
			took.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
	}
	if err := c.Failover(ctx, "n2", ""); err == nil {
		t.Error("failover of a master succeeded")
	}
	if err := c.Failover(ctx, "n2r", "SOMETIMES"); err == nil {
		t.Error("failover with a bad mode succeeded")
	}
}

// Row 14's mechanism: a write acknowledged by the master but cut off from
// its replica is lost when the replica is promoted.
func TestCutReplicationThenForcedFailoverLosesTheWrite(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 30*time.Second)
	rc := clustertest.ClusterClient(t, c, "c1")
	k := keyOn(t, c, "n1", "lost")
	clustertest.Must(t, rc.Set(ctx, k, "replicated", 0).Err())
	replica := replicaReader(t, c, "n1r")
	waitValue(t, ctx, replica, k, "replicated")

	clustertest.Must(t, c.CutReplication(ctx, "n1"))
	if err := rc.Set(ctx, k, "acknowledged", 0).Err(); err != nil {
		t.Fatalf("SET on n1 with its replication cut: %v", err)
	}
	clustertest.Must(t, c.Failover(ctx, "n1r", rediscluster.FailoverForce))
	roles(t, c, ctx, rediscluster.SlotOf(k), "n1r", "n1")
	if got, err := rc.Get(ctx, k).Result(); err != nil || got != "replicated" {
		t.Errorf("GET %s after the failover = %q, %v; want the acknowledged write lost", k, got, err)
	}
	// n1, now n1r's replica, resynchronised from it: the write is gone.
	waitValue(t, ctx, replicaReader(t, c, "n1"), k, "replicated")
	clustertest.Must(t, c.HealReplication(ctx, "n1"))
	clustertest.Must(t, c.WaitHealthy(ctx))
}

// replicaReader is an admin client that reads from a replica (READONLY on
// its one connection).
func replicaReader(t *testing.T, c *rediscluster.Cluster, name string) *redis.Client {
	t.Helper()
	addr, err := c.AdminAddr(name)
	clustertest.Must(t, err)
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true, Protocol: 2, PoolSize: 1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
	t.Cleanup(func() { rc.Close() })
	return rc
}

// waitValue polls until the key holds want on rc, or fails the test.
func waitValue(t *testing.T, ctx context.Context, rc *redis.Client, k, want string) {
	t.Helper()
	var got string
	var err error
	for ctx.Err() == nil {
		if got, err = rc.Get(ctx, k).Result(); err == nil && got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s on %s = %q, %v; want %q", k, rc.Options().Addr, got, err, want)
}

// A killed master is failed over like an isolated one; restarted (same
// port, same nodes.conf, empty with persistence none) it rejoins as a
// replica of its promoted replica.
func TestKillAndRestartRejoinsAsReplica(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 30*time.Second)
	slot := rediscluster.Slots - 1 // n3's
	begin := time.Now()
	clustertest.Must(t, c.Kill(ctx, "n3"))
	for {
		if o, err := c.MasterOf(ctx, slot); err == nil && o == "n3r" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("n3r was not promoted after n3 was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("n3 killed: n3r promoted after %v", time.Since(begin).Round(time.Millisecond))
	clustertest.Must(t, c.Restart(ctx, "n3"))
	roles(t, c, ctx, slot, "n3r", "n3")
}
