package cluster_test

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/redis/go-redis/v9"
)

// A write to the master reaches the replica, through the replication
// link's proxy: while the link is cut a new write stays on the master,
// and it arrives once the link heals.
func TestReplicaReplicatesThroughLink(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}})
	ctx := clustertest.Context(t, 20*time.Second)
	rc := clustertest.Dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)

	info, err := rep.Info(ctx, "replication").Result()
	clustertest.Must(t, err)
	link, err := c.ReplicationLinkAddr()
	clustertest.Must(t, err)
	if _, port, _ := net.SplitHostPort(link); !strings.Contains(info, "master_port:"+port+"\r\n") {
		t.Fatalf("replica does not replicate through the link proxy %s:\n%s", link, info)
	}

	clustertest.Must(t, rc.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 2*time.Second, "k1 on the replica", func() error { return hasValue(ctx, rep, "k1", "v1") })

	clustertest.Must(t, c.CutReplication(ctx))
	clustertest.Must(t, rc.Set(ctx, "k2", "v2", 0).Err())
	time.Sleep(300 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "k2").Result(); n != 0 {
		t.Fatal("k2 reached the replica through a cut replication link")
	}
	if !c.ReplicationFaulty() {
		t.Fatal("ReplicationFaulty is false while the link is cut")
	}
	clustertest.Must(t, c.HealReplication(ctx))
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
	c := clustertest.StartReplicated(t, local.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}, Clients: []string{"c1", "c2"}})
	ctx := clustertest.Context(t, 20*time.Second)
	if c.Promotion() != cluster.PromoteManual {
		t.Fatalf("promotion %q", c.Promotion())
	}
	c1 := clustertest.Dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)
	lockLostInFailover(t, c, ctx, c1, rep)
	clustertest.Must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "lock", "tok2")
	failoverByKillAndBack(t, c, ctx, c1, rep, func() bool { return c.Pid("n1") == 0 })
}

// With sentinel, the failover is sentinel's own: it notices the master is
// down, promotes the replica, and reports the new master; the clients'
// proxies follow. After a failback the sentinels watch n1 again and a
// second failover (by partition) goes through them too.
func TestFailoverBySentinel(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteSentinel}})
	ctx := clustertest.Context(t, 20*time.Second)
	if len(c.SentinelAddrs()) != 1 {
		t.Fatalf("sentinels %v, want 1", c.SentinelAddrs())
	}
	replica, _ := c.ReplicaAddr()
	link, _ := c.ReplicationLinkAddr()
	sc := redis.NewSentinelClient(&redis.Options{Addr: c.SentinelAddrs()[0], MaxRetries: -1, DisableIdentity: true, Protocol: 2})
	defer sc.Close()
	masterOf := func() string {
		a, err := sc.GetMasterAddrByName(ctx, "lockstorm").Result()
		clustertest.Must(t, err)
		return a[0] + ":" + a[1]
	}
	if m := masterOf(); m != link {
		t.Fatalf("sentinel watches %s, want the replication link %s", m, link)
	}
	sentinelRoundTrip(t, c, ctx, func() bool { return c.Pid("n1") != 0 }, sentinelChecks{
		afterKill: func() {
			if m := masterOf(); m != replica {
				t.Fatalf("sentinel names %s as master, want the replica %s", m, replica)
			}
		},
		afterFailback: func() {
			if m := masterOf(); m != link {
				t.Fatalf("after failback sentinel watches %s, want %s", m, link)
			}
		},
		afterPartition: func() {
			if m := masterOf(); m != replica {
				t.Fatalf("sentinel names %s as master, want the replica %s", m, replica)
			}
		},
	})
}

// Three sentinels with a quorum of two agree on the failover.
func TestFailoverThreeSentinels(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteSentinel, Sentinels: 3}})
	ctx := clustertest.Context(t, 20*time.Second)
	if len(c.SentinelAddrs()) != 3 {
		t.Fatalf("sentinels %v, want 3", c.SentinelAddrs())
	}
	res, err := c.Failover(ctx, cluster.FailoverOptions{})
	clustertest.Must(t, err)
	t.Logf("3-sentinel failover: %v", res)
	c1 := clustertest.Dial(t, c, "c1", "n1", time.Second)
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
	clustertest.Must(t, c.HealAll(ctx))
	checkRestored(t, c, ctx, "k", "v")
}

// Stop ends every process of a replicated cluster (nodes, replica,
// sentinels) and removes the run directory, even in the middle of a
// failover; a Failover in flight returns.
func TestReplicaStopCleansUp(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteSentinel}})
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
	clustertest.Must(t, c.Stop())
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
	ctx := clustertest.Context(t, 20*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: 1})
	clustertest.Must(t, err)
	defer c.Stop()
	if _, err := cluster.ReplicationOf(c); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("ReplicationOf without replica: %v", err)
	}
	if _, err := c.Failover(ctx, cluster.FailoverOptions{}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("Failover without replica: %v", err)
	}
	for _, cfg := range []local.Config{
		{Nodes: 1, Replica: true, ReplicaOptions: cluster.ReplicaOptions{Promotion: "bogus"}},
		{Nodes: 1, Replica: true, ReplicaOptions: cluster.ReplicaOptions{Sentinels: -1}},
		{Nodes: 1, Replica: true, ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteSentinel}, RedisSentinel: "/nonexistent/redis-sentinel"},
	} {
		if c, err := local.Start(ctx, cfg); err == nil {
			c.Stop()
			t.Fatalf("%+v started", cfg)
		}
	}
	// Auto promotion falls back to manual without redis-sentinel.
	c2, err := local.Start(ctx, local.Config{Nodes: 1, Replica: true, RedisSentinel: "/nonexistent/redis-sentinel"})
	clustertest.Must(t, err)
	defer c2.Stop()
	if c2.Promotion() != cluster.PromoteManual || len(c2.SentinelAddrs()) != 0 {
		t.Fatalf("auto without sentinel: %q, %v", c2.Promotion(), c2.SentinelAddrs())
	}
	if _, err := c2.Failover(ctx, cluster.FailoverOptions{Method: "melt"}); err == nil {
		t.Fatal("unknown failover method accepted")
	}
}
