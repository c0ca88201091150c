package cluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/docker"
)

// startDockerReplicated starts one container with a replica container and
// the given promotion, stopped when the test ends.
func startDockerReplicated(t *testing.T, cfg docker.Config) *docker.Cluster {
	t.Helper()
	clustertest.NeedDocker(t)
	cfg.Nodes, cfg.Replica, cfg.Image = 1, true, clustertest.RedisImage
	return startPair(t, 60*time.Second, func(ctx context.Context) (*docker.Cluster, error) { return docker.Start(ctx, cfg) })
}

// checkDockerGone stops c and checks that none of its containers or
// networks remain.
func checkDockerGone(t *testing.T, c *docker.Cluster) {
	t.Helper()
	cli := dockerAPI(t)
	label := "lockstorm.run=" + c.Run()
	if got := labelled(t, cli, label); len(got) < 4 { // n1, n1-replica, two networks
		t.Fatalf("before Stop: %v", got)
	}
	must(t, c.Stop())
	if left := labelled(t, cli, label); len(left) != 0 {
		t.Fatalf("after Stop: %v", left)
	}
}

// Catalogue row 12 on docker, manual promotion: the replica replicates
// over the private network; with the replication link cut (n1 off that
// network) a lock taken on the master never reaches it; a partition
// failover promotes it and c2, through the same proxy address, takes the
// same lock; HealAll restores the pair; a kill failover works too; Stop
// removes every container and network.
func TestDockerFailoverManual(t *testing.T) {
	c := startDockerReplicated(t, docker.Config{Promotion: cluster.PromoteManual, Clients: []string{"c1", "c2"}})
	ctx := ctxT(t)
	if _, err := cluster.ReplicationOf(c); err != nil {
		t.Fatal(err)
	}
	c1 := dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)

	must(t, c1.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 3*time.Second, "k1 on the replica", func() error { return hasValue(ctx, rep, "k1", "v1") })
	must(t, c.CutReplication(ctx))
	if !c.ReplicationFaulty() {
		t.Fatal("ReplicationFaulty is false while the link is cut")
	}
	must(t, c1.Set(ctx, "k2", "v2", 0).Err())
	time.Sleep(300 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "k2").Result(); n != 0 {
		t.Fatal("k2 reached the replica through a cut replication link")
	}
	must(t, c.HealReplication(ctx))
	eventually(t, 3*time.Second, "k2 on the replica after the heal", func() error { return hasValue(ctx, rep, "k2", "v2") })
	if err := c.DelayReplication(ctx, cluster.Latency{Delay: time.Millisecond}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("DelayReplication: %v, want ErrUnsupported", err)
	}

	start := time.Now()
	lockLostInFailover(t, c, ctx, c1, rep)
	must(t, c.HealAll(ctx))
	t.Logf("partition failover and HealAll took %v", time.Since(start).Round(time.Millisecond))
	checkRestored(t, c, ctx, "lock", "tok2")
	failoverByKillAndBack(t, c, ctx, c1, rep, func() bool { return !c.Running("n1") })
	checkDockerGone(t, c)
}

// With sentinel containers (the image's redis-server --sentinel), the
// failover is sentinel's own; after a failback the sentinel watches n1
// again and a partition failover goes through it too; Stop removes the
// sentinel container with the rest.
func TestDockerFailoverBySentinel(t *testing.T) {
	c := startDockerReplicated(t, docker.Config{})
	ctx := ctxT(t)
	if c.Promotion() != cluster.PromoteSentinel || len(c.SentinelAddrs()) != 1 {
		t.Fatalf("promotion %q, sentinels %v: want auto to mean one sentinel", c.Promotion(), c.SentinelAddrs())
	}
	sentinelRoundTrip(t, c, ctx, func() bool { return c.Running("n1") }, sentinelChecks{})
	checkDockerGone(t, c)
}
