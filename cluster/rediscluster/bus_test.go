package rediscluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// IsolateBus of a master: the others fail it over to its replica while
// the isolated master still believes it is a master; it accepts writes
// until it sees itself in a minority (cluster_state:fail), and those its
// replica did not receive (replication cut too) are lost. HealBus: it
// rejoins as a replica of its promoted replica.
func TestIsolateBusFailsTheMasterOver(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 30*time.Second)
	k, lost := keyOn(t, c, "n1", "iso"), keyOn(t, c, "n1", "lost")
	old, promoted := proxyClient(t, c, "c1", "n1"), proxyClient(t, c, "c1", "n1r")

	clustertest.Must(t, c.CutReplication(ctx, "n1"))
	begin := time.Now()
	clustertest.Must(t, c.IsolateBus(ctx, "n1"))
	isolated := time.Now()
	t.Logf("IsolateBus took %v", isolated.Sub(begin).Round(time.Millisecond))
	if err := old.Set(ctx, lost, "acknowledged", 0).Err(); err != nil {
		t.Fatalf("write on n1 just isolated: %v, want it accepted", err)
	}

	// Watch until n1r is promoted and n1 has stopped accepting writes.
	var lastOldWrite, firstNewWrite, oldFail, promotion time.Duration
	wait, cancel := context.WithTimeout(ctx, c.NodeTimeout()+10*time.Second)
	defer cancel()
	for oldFail == 0 || firstNewWrite == 0 {
		at := time.Since(isolated)
		if err := old.Set(wait, k, "old", 0).Err(); err == nil {
			lastOldWrite = at
		}
		if firstNewWrite == 0 && promoted.Set(wait, k, "new", 0).Err() == nil {
			firstNewWrite = at
		}
		s, err := c.State(wait)
		clustertest.Must(t, err)
		n1, _ := s.Node("n1")
		if oldFail == 0 && n1.ClusterState == "fail" {
			oldFail = at
			t.Logf("%v: n1 believes: role %s, cluster_state %s, suspects %v", at.Round(time.Millisecond), n1.Role, n1.ClusterState, n1.Suspects)
		}
		if promotion == 0 && s.Owner(rediscluster.SlotOf(k)) == "n1r" {
			promotion = at
			if n1.Role != rediscluster.RoleMaster {
				t.Errorf("n1 when n1r was promoted: %+v, want it still believing it is a master", n1)
			}
		}
		if wait.Err() != nil {
			t.Fatalf("after %v: n1 cluster_state:fail at %v, n1r promoted at %v, first write on n1r at %v",
				at, oldFail, promotion, firstNewWrite)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("after isolation: last write accepted by n1 %v, n1 cluster_state:fail %v, n1r owns the slot %v, first write accepted by n1r %v",
		lastOldWrite.Round(time.Millisecond), oldFail.Round(time.Millisecond), promotion.Round(time.Millisecond), firstNewWrite.Round(time.Millisecond))
	if err := old.Set(ctx, k, "late", 0).Err(); err == nil || !isRedirect(err, "CLUSTERDOWN") {
		t.Errorf("write on the isolated n1 after its cluster_state:fail: %v, want CLUSTERDOWN", err)
	}
	if role, err := clustertest.Admin(t, c, "n1", 3*time.Second).Do(ctx, "ROLE").Slice(); err != nil || role[0] != "master" {
		t.Errorf("ROLE on the isolated n1: %v, %v; want master", role, err)
	}

	healBusAndCheck(t, ctx, c, k, lost)
}

// healBusAndCheck heals n1's bus and replication after
// TestIsolateBusFailsTheMasterOver: n1 rejoins as a replica of n1r, k holds
// n1r's value and lost, written on the isolated n1 only, is gone.
func healBusAndCheck(t *testing.T, ctx context.Context, c *rediscluster.Cluster, k, lost string) {
	t.Helper()
	begin := time.Now()
	clustertest.Must(t, c.HealBus(ctx, "n1"))
	clustertest.Must(t, c.HealReplication(ctx, "n1"))
	clustertest.Must(t, c.WaitHealthy(ctx))
	t.Logf("HealBus until healthy: %v", time.Since(begin).Round(time.Millisecond))
	s, err := c.State(ctx)
	clustertest.Must(t, err)
	if n1, _ := s.Node("n1"); n1.Role != rediscluster.RoleReplica || n1.Following != "n1r" {
		t.Errorf("n1 after HealBus: %+v, want a replica of n1r", n1)
	}
	rc := clustertest.ClusterClient(t, c, "c1")
	if got, err := rc.Get(ctx, k).Result(); err != nil || got != "new" {
		t.Errorf("GET %s after heal = %q, %v; want n1r's value", k, got, err)
	}
	if got, err := rc.Get(ctx, lost).Result(); err != redis.Nil {
		t.Errorf("GET %s, written on the isolated n1 only, = %q, %v; want it lost", lost, got, err)
	}
}

func TestIsolateBusOneNodeAtATime(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 20*time.Second)
	clustertest.Must(t, c.IsolateBus(ctx, "n2"))
	clustertest.Must(t, c.IsolateBus(ctx, "n2")) // again: nothing to do
	if err := c.IsolateBus(ctx, "n3"); !errors.Is(err, rediscluster.ErrBusIsolated) {
		t.Errorf("a second isolation: %v, want ErrBusIsolated", err)
	}
	clustertest.Must(t, c.CutReplication(ctx, "n3"))
	if got, want := c.InternalFaults(), []string{"n2: bus isolated", "n3: replication cut"}; !equal(got, want) {
		t.Errorf("InternalFaults = %v, want %v", got, want)
	}
	clustertest.Must(t, c.HealAll(ctx))
	if got := c.InternalFaults(); len(got) > 0 {
		t.Errorf("InternalFaults after HealAll = %v", got)
	}
	if got := c.Isolated(); got != "" {
		t.Errorf("isolated after HealAll: %q", got)
	}
	clustertest.Must(t, c.WaitHealthy(ctx))
}

// proxyClient is a plain client of one node through the client's proxy,
// without retries, closed when the test ends.
func proxyClient(t *testing.T, c *rediscluster.Cluster, client, node string) *redis.Client {
	t.Helper()
	addr, err := c.Addr(client, node)
	clustertest.Must(t, err)
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true, Protocol: 2,
		ReadTimeout: 300 * time.Millisecond, ContextTimeoutEnabled: true})
	t.Cleanup(func() { rc.Close() })
	return rc
}
