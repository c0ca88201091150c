package cluster_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/redis/go-redis/v9"
)

// startReplicated starts one node with a replica and the given promotion,
// stopped when the test ends.
func startReplicated(t *testing.T, cfg local.Config) *local.Cluster {
	t.Helper()
	if cfg.Promotion == cluster.PromoteSentinel {
		if _, err := exec.LookPath("redis-sentinel"); err != nil {
			t.Skip("redis-sentinel not installed:", err)
		}
	}
	cfg.Nodes, cfg.Replica = 1, true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	c, err := local.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replicated cluster (%s, %d sentinels) started in %v", c.Promotion(), len(c.SentinelAddrs()),
		time.Since(start).Round(time.Millisecond))
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
}

// replicaClient connects to the replica directly.
func replicaClient(t *testing.T, c replicatedCluster) *redis.Client {
	t.Helper()
	addr, err := c.ReplicaAddr()
	must(t, err)
	return newClient(t, addr, 2*time.Second)
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
	rc := newClient(t, addr, 2*time.Second)
	s, err := rc.Info(context.Background(), "replication").Result()
	must(t, err)
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "role:"); ok {
			return v
		}
	}
	return ""
}

// A write to the master reaches the replica, through the replication
// link's proxy: while the link is cut a new write stays on the master,
// and it arrives once the link heals.
func TestReplicaReplicatesThroughLink(t *testing.T) {
	c := startReplicated(t, local.Config{Promotion: cluster.PromoteManual})
	ctx := ctxT(t)
	rc := dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)

	info, err := rep.Info(ctx, "replication").Result()
	must(t, err)
	link, err := c.ReplicationLinkAddr()
	must(t, err)
	if !strings.Contains(info, "master_port:"+link[strings.LastIndexByte(link, ':')+1:]) {
		t.Fatalf("replica does not replicate through the link proxy %s:\n%s", link, info)
	}

	must(t, rc.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 2*time.Second, "k1 on the replica", func() error { return hasValue(ctx, rep, "k1", "v1") })

	must(t, c.CutReplication(ctx))
	must(t, rc.Set(ctx, "k2", "v2", 0).Err())
	time.Sleep(300 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "k2").Result(); n != 0 {
		t.Fatal("k2 reached the replica through a cut replication link")
	}
	if !c.ReplicationFaulty() {
		t.Fatal("ReplicationFaulty is false while the link is cut")
	}
	must(t, c.HealReplication(ctx))
	eventually(t, 5*time.Second, "k2 on the replica after the heal", func() error { return hasValue(ctx, rep, "k2", "v2") })
	if c.ReplicationFaulty() {
		t.Fatal("ReplicationFaulty after HealReplication")
	}
}

// Catalogue row 12 by hand: with the replication link cut, client c1 takes
// a lock on the master; the failover promotes the replica, which never got
// the lock, and c2, dialling the same proxy address as before, takes the
// same lock. HealAll then hands the master role back without losing the
// new master's writes, and a second failover works.
func TestFailoverLosesLockManual(t *testing.T) {
	c := startReplicated(t, local.Config{Promotion: cluster.PromoteManual, Clients: []string{"c1", "c2"}})
	ctx := ctxT(t)
	if c.Promotion() != cluster.PromoteManual {
		t.Fatalf("promotion %q", c.Promotion())
	}
	c1 := dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)
	lockLostInFailover(t, c, ctx, c1, rep)
	must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "lock", "tok2")
	failoverByKillAndBack(t, c, ctx, c1, rep, func() bool { return c.Pid("n1") == 0 })
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
	must(t, c.CutReplication(ctx))
	if ok, err := c1.SetNX(ctx, "lock", "tok1", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c1 acquire on the master: %v, %v", ok, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "lock").Result(); n != 0 {
		t.Fatal("the lock reached the replica through a cut link")
	}

	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverPartition})
	must(t, err)
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
	c2 := dial(t, c, "c2", "n1", time.Second)
	if ok, err := c2.SetNX(ctx, "lock", "tok2", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c2 acquire after the failover: %v, %v; want the lock lost and taken", ok, err)
	}
	// c1's old connection was closed by the retarget; after reconnecting it
	// sees c2's token.
	eventually(t, 2*time.Second, "c1 sees tok2", func() error { return hasValue(ctx, c1, "lock", "tok2") })
	// The partitioned old master is alive and still holds c1's lock.
	if err := hasValue(ctx, admin(t, c, "n1"), "lock", "tok1"); err != nil {
		t.Fatalf("old master: %v", err)
	}

}

// failoverByKillAndBack checks that the pair works again: a kill failover
// keeps a replicated write reachable through the proxy, and Failback (twice)
// restores the pair. down reports whether n1 is down.
func failoverByKillAndBack(t *testing.T, c replicatedCluster, ctx context.Context, c1, rep *redis.Client, down func() bool) {
	t.Helper()
	must(t, c1.Set(ctx, "k3", "v3", 0).Err())
	eventually(t, 2*time.Second, "k3 replicated", func() error { return hasValue(ctx, rep, "k3", "v3") })
	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverKill})
	must(t, err)
	t.Logf("second failover: %v", res)
	if !down() {
		t.Fatal("n1 alive after a kill failover")
	}
	eventually(t, 2*time.Second, "k3 through the proxy", func() error { return hasValue(ctx, c1, "k3", "v3") })
	must(t, c.Failback(ctx))
	must(t, c.Failback(ctx)) // nothing to do
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
	if err := hasValue(ctx, admin(t, c, "n1"), key, val); err != nil {
		t.Fatalf("n1 after failback lost the new master's write: %v", err)
	}
	if c.ReplicationFaulty() || len(c.Proxies().Faulty()) != 0 {
		t.Fatal("faults left after failback")
	}
	rc := dial(t, c, c.Clients()[0], "n1", time.Second)
	eventually(t, 2*time.Second, "write through the proxy after failback", func() error {
		return rc.Set(ctx, "after-failback", "1", 0).Err()
	})
	rep := replicaClient(t, c)
	eventually(t, 2*time.Second, "replication after failback", func() error {
		return hasValue(ctx, rep, "after-failback", "1")
	})
}

// With sentinel, the failover is sentinel's own: it notices the master is
// down, promotes the replica, and reports the new master; the clients'
// proxies follow. After a failback the sentinels watch n1 again and a
// second failover (by partition) goes through them too.
func TestFailoverBySentinel(t *testing.T) {
	c := startReplicated(t, local.Config{Promotion: cluster.PromoteSentinel})
	ctx := ctxT(t)
	if len(c.SentinelAddrs()) != 1 {
		t.Fatalf("sentinels %v, want 1", c.SentinelAddrs())
	}
	replica, _ := c.ReplicaAddr()
	link, _ := c.ReplicationLinkAddr()
	sc := redis.NewSentinelClient(&redis.Options{Addr: c.SentinelAddrs()[0], MaxRetries: -1, DisableIdentity: true, Protocol: 2})
	defer sc.Close()
	masterOf := func() string {
		a, err := sc.GetMasterAddrByName(ctx, "lockstorm").Result()
		must(t, err)
		return a[0] + ":" + a[1]
	}
	if m := masterOf(); m != link {
		t.Fatalf("sentinel watches %s, want the replication link %s", m, link)
	}
	c1 := dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)
	must(t, c1.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 2*time.Second, "k1 replicated", func() error { return hasValue(ctx, rep, "k1", "v1") })

	res, err := c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverKill})
	must(t, err)
	t.Logf("sentinel failover (kill): %v", res)
	if res.Promotion != cluster.PromoteSentinel {
		t.Fatalf("promotion %q, want sentinel", res.Promotion)
	}
	if m := masterOf(); m != replica {
		t.Fatalf("sentinel names %s as master, want the replica %s", m, replica)
	}
	eventually(t, 2*time.Second, "write through the proxy", func() error { return c1.Set(ctx, "k2", "v2", 0).Err() })
	if err := hasValue(ctx, rep, "k2", "v2"); err != nil {
		t.Fatalf("write through n1's proxy did not land on the promoted replica: %v", err)
	}

	start := time.Now()
	must(t, c.Failback(ctx))
	t.Logf("failback took %v", time.Since(start).Round(time.Millisecond))
	checkRestored(t, c, ctx, "k2", "v2")
	if m := masterOf(); m != link {
		t.Fatalf("after failback sentinel watches %s, want %s", m, link)
	}

	res, err = c.Failover(ctx, cluster.FailoverOptions{Method: cluster.FailoverPartition})
	must(t, err)
	t.Logf("sentinel failover (partition): %v", res)
	if c.Pid("n1") == 0 {
		t.Fatal("a partition failover killed n1")
	}
	if m := masterOf(); m != replica {
		t.Fatalf("sentinel names %s as master, want the replica %s", m, replica)
	}
	must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "k2", "v2")
}

// Three sentinels with a quorum of two agree on the failover.
func TestFailoverThreeSentinels(t *testing.T) {
	c := startReplicated(t, local.Config{Promotion: cluster.PromoteSentinel, Sentinels: 3})
	ctx := ctxT(t)
	if len(c.SentinelAddrs()) != 3 {
		t.Fatalf("sentinels %v, want 3", c.SentinelAddrs())
	}
	res, err := c.Failover(ctx, cluster.FailoverOptions{})
	must(t, err)
	t.Logf("3-sentinel failover: %v", res)
	c1 := dial(t, c, "c1", "n1", time.Second)
	eventually(t, 2*time.Second, "write through the proxy", func() error { return c1.Set(ctx, "k", "v", 0).Err() })
	replica, _ := c.ReplicaAddr()
	for _, a := range c.SentinelAddrs() {
		sc := redis.NewSentinelClient(&redis.Options{Addr: a, MaxRetries: -1, DisableIdentity: true, Protocol: 2})
		eventually(t, 3*time.Second, "sentinel "+a+" agrees", func() error {
			m, err := sc.GetMasterAddrByName(ctx, "lockstorm").Result()
			if err != nil {
				return err
			}
			if m[0]+":"+m[1] != replica {
				return errors.New("still " + m[0] + ":" + m[1])
			}
			return nil
		})
		sc.Close()
	}
	must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "k", "v")
}

// Stop ends every process of a replicated cluster (nodes, replica,
// sentinels) and removes the run directory, even in the middle of a
// failover; a Failover in flight returns.
func TestReplicaStopCleansUp(t *testing.T) {
	c := startReplicated(t, local.Config{Promotion: cluster.PromoteSentinel})
	pids := append([]int{c.Pid("n1"), c.ReplicaPid()}, c.SentinelPids()...)
	for _, p := range pids {
		if p == 0 || !alive(p) {
			t.Fatalf("pids %v: a process is not running", pids)
		}
	}
	// A failover that would wait 10 s for the sentinel to notice.
	done := make(chan error, 1)
	go func() {
		_, err := c.Failover(context.Background(), cluster.FailoverOptions{Detect: 10 * time.Second})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	must(t, c.Stop())
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("failover interrupted by Stop reported success")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("failover in flight did not return after Stop")
	}
	t.Logf("stop during a failover took %v", time.Since(start).Round(time.Millisecond))
	for _, p := range pids {
		if alive(p) {
			t.Fatalf("pid %d alive after Stop (pids %v)", p, pids)
		}
	}
	if _, err := os.Stat(c.Dir()); !os.IsNotExist(err) {
		t.Fatalf("run directory %s remains: %v", c.Dir(), err)
	}
	if _, err := c.Failover(context.Background(), cluster.FailoverOptions{}); !errors.Is(err, cluster.ErrStopped) {
		t.Fatalf("failover after Stop: %v, want ErrStopped", err)
	}
}

// A cluster without a replica says so; bad settings are refused.
func TestReplicaUnsupportedAndBadInput(t *testing.T) {
	ctx := ctxT(t)
	c, err := local.Start(ctx, local.Config{Nodes: 1})
	must(t, err)
	defer c.Stop()
	if _, err := cluster.ReplicationOf(c); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("ReplicationOf without replica: %v", err)
	}
	if _, err := c.Failover(ctx, cluster.FailoverOptions{}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("Failover without replica: %v", err)
	}
	for _, cfg := range []local.Config{
		{Nodes: 1, Replica: true, Promotion: "bogus"},
		{Nodes: 1, Replica: true, Sentinels: -1},
		{Nodes: 1, Replica: true, Promotion: cluster.PromoteSentinel, RedisSentinel: "/nonexistent/redis-sentinel"},
	} {
		if c, err := local.Start(ctx, cfg); err == nil {
			c.Stop()
			t.Fatalf("%+v started", cfg)
		}
	}
	// Auto promotion falls back to manual without redis-sentinel.
	c2, err := local.Start(ctx, local.Config{Nodes: 1, Replica: true, RedisSentinel: "/nonexistent/redis-sentinel"})
	must(t, err)
	defer c2.Stop()
	if c2.Promotion() != cluster.PromoteManual || len(c2.SentinelAddrs()) != 0 {
		t.Fatalf("auto without sentinel: %q, %v", c2.Promotion(), c2.SentinelAddrs())
	}
	if _, err := c2.Failover(ctx, cluster.FailoverOptions{Method: "melt"}); err == nil {
		t.Fatal("unknown failover method accepted")
	}
}
