package cluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
	"github.com/redis/go-redis/v9"
)

// startPair starts a replicated cluster with start, bounded by timeout,
// logs how long that took, and stops the cluster when the test ends.
func startPair[C replicatedCluster](t *testing.T, timeout time.Duration, start func(context.Context) (C, error)) C {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	began := time.Now()
	c, err := start(ctx)
	clustertest.Must(t, err)
	t.Logf("replicated cluster (%s, %d sentinels) started in %v", c.Promotion(), len(c.SentinelAddrs()),
		time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return c
}

// replicatedCluster is a provider started with a replica (local or docker).
type replicatedCluster interface {
	cluster.Cluster
	cluster.Replicated
	Proxies() *cluster.Proxies
	ReplicationFaulty() bool
	SentinelAddrs() []string
}

// replicaClient connects to the replica directly.
func replicaClient(t *testing.T, c replicatedCluster) *redis.Client {
	t.Helper()
	addr, err := c.ReplicaAddr()
	clustertest.Must(t, err)
	return clustertest.Client(t, addr, 2*time.Second)
}

// eventually polls f every 20 ms until it returns nil, failing after d.
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasValue checks that key holds want on rc.
func hasValue(ctx context.Context, rc *redis.Client, key, want string) error {
	got, err := rc.Get(ctx, key).Result()
	if err != nil {
		return err
	}
	if got != want {
		return errors.New("got " + got + ", want " + want)
	}
	return nil
}

// role returns the replication role of the process at addr.
func role(t *testing.T, addr string) string {
	t.Helper()
	info, err := redisadmin.Replication(context.Background(), addr)
	clustertest.Must(t, err)
	return info["role"]
}

// lockLostInFailover is catalogue row 12's mechanism on a manual-promotion
// pair with clients c1 (dialled) and c2: with the replication link cut, c1
// takes a lock on the master, which the replica never gets; a partition
// failover promotes the replica, and c2, through the same proxy address,
// takes the same lock, while the old master still holds c1's.
func lockLostInFailover(t *testing.T, c replicatedCluster, ctx context.Context, c1, rep *redis.Client) {
	t.Helper()
	primary, _ := c.AdminAddr("n1")
	replica, _ := c.ReplicaAddr()
	clustertest.Must(t, c.CutReplication(ctx))
	if ok, err := c1.SetNX(ctx, "lock", "tok1", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c1 acquire on the master: %v, %v", ok, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "lock").Result(); n != 0 {
		t.Fatal("the lock reached the replica through a cut link")
	}

	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverPartition})
	clustertest.Must(t, err)
	t.Logf("failover: %v", res)
	if res.Promotion != cluster.PromoteManual || res.NewMaster != replica || res.OldMaster != primary {
		t.Fatalf("result %+v", res)
	}
	if m, _ := c.MasterAddr(); m != replica {
		t.Fatalf("MasterAddr %s, want the replica %s", m, replica)
	}
	if up, _ := c.Proxies().Upstream("n1"); up != replica {
		t.Fatalf("n1's proxies lead to %s, want the replica %s", up, replica)
	}
	if _, err := c.Failover(ctx, cluster.FailoverOptions{}); !errors.Is(err, cluster.ErrFailedOver) {
		t.Fatalf("second failover without failback: %v, want ErrFailedOver", err)
	}

	// c2 reaches the new master through the usual address: the lock is free.
	c2 := clustertest.Dial(t, c, "c2", "n1", time.Second)
	if ok, err := c2.SetNX(ctx, "lock", "tok2", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c2 acquire after the failover: %v, %v; want the lock lost and taken", ok, err)
	}
	// c1's old connection was closed by the retarget; after reconnecting it
	// sees c2's token.
	eventually(t, 2*time.Second, "c1 sees tok2", func() error { return hasValue(ctx, c1, "lock", "tok2") })
	// The partitioned old master is alive and still holds c1's lock.
	if err := hasValue(ctx, clustertest.Admin(t, c, "n1", 2*time.Second), "lock", "tok1"); err != nil {
		t.Fatalf("old master: %v", err)
	}

}

// failoverByKillAndBack checks that the pair works again: a kill failover
// keeps a replicated write reachable through the proxy, and Failback (twice)
// restores the pair. down reports whether n1 is down.
func failoverByKillAndBack(t *testing.T, c replicatedCluster, ctx context.Context, c1, rep *redis.Client, down func() bool) {
	t.Helper()
	clustertest.Must(t, c1.Set(ctx, "k3", "v3", 0).Err())
	eventually(t, 2*time.Second, "k3 replicated", func() error { return hasValue(ctx, rep, "k3", "v3") })
	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverKill})
	clustertest.Must(t, err)
	t.Logf("second failover: %v", res)
	if !down() {
		t.Fatal("n1 alive after a kill failover")
	}
	eventually(t, 2*time.Second, "k3 through the proxy", func() error { return hasValue(ctx, c1, "k3", "v3") })
	clustertest.Must(t, c.Failback(ctx))
	clustertest.Must(t, c.Failback(ctx)) // nothing to do
	checkRestored(t, c, ctx, "k3", "v3")
}

// checkRestored asserts the original topology after a failback: n1 is the
// master the clients reach and holds key=val, the replica replicates it
// through a healthy link.
func checkRestored(t *testing.T, c replicatedCluster, ctx context.Context, key, val string) {
	t.Helper()
	primary, _ := c.AdminAddr("n1")
	replica, _ := c.ReplicaAddr()
	if m, _ := c.MasterAddr(); m != primary {
		t.Fatalf("MasterAddr %s after failback, want n1 %s", m, primary)
	}
	if r := role(t, primary); r != "master" {
		t.Fatalf("n1 is %s after failback", r)
	}
	if r := role(t, replica); r != "slave" {
		t.Fatalf("replica is %s after failback", r)
	}
	if err := hasValue(ctx, clustertest.Admin(t, c, "n1", 2*time.Second), key, val); err != nil {
		t.Fatalf("n1 after failback lost the new master's write: %v", err)
	}
	if c.ReplicationFaulty() || len(c.Proxies().Faulty()) != 0 {
		t.Fatal("faults left after failback")
	}
	rc := clustertest.Dial(t, c, c.Clients()[0], "n1", time.Second)
	eventually(t, 2*time.Second, "write through the proxy after failback", func() error {
		return rc.Set(ctx, "after-failback", "1", 0).Err()
	})
	rep := replicaClient(t, c)
	eventually(t, 2*time.Second, "replication after failback", func() error {
		return hasValue(ctx, rep, "after-failback", "1")
	})
}

// sentinelChecks are a provider's own checks at the steps of
// sentinelRoundTrip; nil ones are skipped.
type sentinelChecks struct{ afterKill, afterFailback, afterPartition func() }

// sentinelRoundTrip drives failovers by sentinel on either provider:
// once a write by c1 has reached the replica, a kill failover, a write
// through n1's proxy that must land on the promoted replica, a failback
// that restores the pair, then a partition failover that must leave n1
// alive, and a HealAll that restores the pair again.
func sentinelRoundTrip(t *testing.T, c replicatedCluster, ctx context.Context, n1Alive func() bool, checks sentinelChecks) {
	t.Helper()
	c1 := clustertest.Dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)
	clustertest.Must(t, c1.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 3*time.Second, "k1 replicated", func() error { return hasValue(ctx, rep, "k1", "v1") })
	run := func(f func()) {
		if f != nil {
			f()
		}
	}
	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverKill})
	clustertest.Must(t, err)
	t.Logf("sentinel failover (kill): %v", res)
	if res.Promotion != cluster.PromoteSentinel {
		t.Fatalf("promotion %q, want sentinel", res.Promotion)
	}
	run(checks.afterKill)
	eventually(t, 2*time.Second, "write through the proxy", func() error { return c1.Set(ctx, "k2", "v2", 0).Err() })
	if err := hasValue(ctx, rep, "k2", "v2"); err != nil {
		t.Fatalf("write through n1's proxy did not land on the promoted replica: %v", err)
	}
	start := time.Now()
	clustertest.Must(t, c.Failback(ctx))
	t.Logf("failback took %v", time.Since(start).Round(time.Millisecond))
	checkRestored(t, c, ctx, "k2", "v2")
	run(checks.afterFailback)

	start = time.Now()
	res, err = c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverPartition})
	clustertest.Must(t, err)
	t.Logf("sentinel failover (partition): %v (%v with the sentinels' rediscovery)", res, time.Since(start).Round(time.Millisecond))
	if !n1Alive() {
		t.Fatal("a partition failover killed n1")
	}
	run(checks.afterPartition)
	clustertest.Must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "k2", "v2")
}
