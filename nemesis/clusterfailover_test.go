package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// Each failover shape of a Redis Cluster promotes the replica of the lock
// key's master (or of the master the fault names), the old master turns
// its replica, the start's outcome says so, and Stop leaves the cluster
// healthy with the roles swapped.
func TestClusterFailoverShapesSwapRoles(t *testing.T) {
	c := startRedisCluster(t, "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	nem := &Failover{Env: clusterEnv(c)}
	for _, f := range []Fault{
		{Kind: KindFailover, Shape: ShapeClusterCoordinated},
		{Kind: KindFailover, Shape: ShapeClusterForce},
		{Kind: KindFailover, Shape: ShapeClusterTakeover},
		{Kind: KindFailover, Shape: ShapeClusterForce, Nodes: []string{"another master"}},
	} {
		master, replica := keyRoles(t, ctx, c)
		if len(f.Nodes) == 1 { // a master that does not own the key's slot
			masters, err := c.Masters(ctx)
			clustertest.Must(t, err)
			master = slices.DeleteFunc(masters, func(m string) bool { return m == master })[0]
			f.Nodes = []string{master}
			replica, err = c.ReplicaOf(ctx, master)
			clustertest.Must(t, err)
		}
		begin := time.Now()
		if err := nem.Start(ctx, f); err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		took := time.Since(begin)
		clustertest.Must(t, nem.Stop(ctx, f))
		t.Logf("%v: start %v, stop %v: %s", f, took.Round(time.Millisecond), time.Since(begin.Add(took)).Round(time.Millisecond), nem.Outcome(f))
		if out := nem.Outcome(f); !strings.HasPrefix(out, replica+" promoted over "+master) {
			t.Errorf("%v: outcome %q", f, out)
		}
		if r, err := c.ReplicaOf(ctx, replica); err != nil || r != master {
			t.Errorf("%v: the replica of the promoted %s is %q, %v; want the old master %s", f, replica, r, err, master)
		}
	}
}

// Catalogue row 14 on a Redis Cluster: the key's master acknowledges a
// write after its replication was cut; the forced failover loses it, and
// Stop heals the replication and leaves the cluster healthy.
func TestClusterFailoverUnreplicatedLosesWrite(t *testing.T) {
	c := startRedisCluster(t, "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc := clustertest.ClusterClient(t, c, "c1")
	master, replica := keyRoles(t, ctx, c)
	clustertest.Must(t, cc.Set(ctx, testKey, "replicated", 0).Err())
	if n, err := clustertest.Admin(t, c, master, opTimeout).Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT for the replica: %d, %v", n, err)
	}

	nem := &Failover{Env: clusterEnv(c)}
	f := Fault{Kind: KindFailover, Shape: ShapeClusterUnreplicated, Delay: 500 * time.Millisecond}
	done := make(chan error, 1)
	begin := time.Now()
	go func() { done <- nem.Start(ctx, f) }()
	waitInternalFault(t, ctx, c, master+": replication cut")
	if err := clustertest.Dial(t, c, "c1", master, opTimeout).Set(ctx, testKey, "acknowledged", 0).Err(); err != nil {
		t.Fatalf("SET on %s with its replication cut: %v, want it acknowledged", master, err)
	}
	select {
	case err := <-done:
		t.Fatalf("failover done (%v) before the write on %s was checked", err, master)
	default:
	}
	clustertest.Must(t, <-done)
	t.Logf("start %v: %s", time.Since(begin).Round(time.Millisecond), nem.Outcome(f))
	if m, err := c.MasterOf(ctx, rediscluster.SlotOf(testKey)); err != nil || m != replica {
		t.Fatalf("key's master after the failover: %q, %v; want %s", m, err, replica)
	}
	// The new master never received the write. (A cluster client may
	// still read it from the old master for the few milliseconds until
	// that hears of the promotion.)
	if got, err := clustertest.Admin(t, c, replica, opTimeout).Get(ctx, testKey).Result(); err != nil || got != "replicated" {
		t.Errorf("GET on the promoted %s = %q, %v; want the acknowledged write lost", replica, got, err)
	}

	stopAt := time.Now()
	clustertest.Must(t, nem.Stop(ctx, f))
	t.Logf("stop (heal replication, healthy) %v", time.Since(stopAt).Round(time.Millisecond))
	if got, err := cc.Get(ctx, testKey).Result(); err != nil || got != "replicated" {
		t.Errorf("GET after Stop = %q, %v; want the acknowledged write lost", got, err)
	}
	if got := c.InternalFaults(); len(got) > 0 {
		t.Errorf("internal faults after Stop: %v", got)
	}
	if r, err := c.ReplicaOf(ctx, replica); err != nil || r != master {
		t.Errorf("replica of %s after Stop: %q, %v; want %s", replica, r, err, master)
	}
	clustertest.Must(t, nem.Stop(ctx, f)) // again: nothing left to heal
}

// Faults a Redis Cluster failover cannot apply are refused before any
// change: a named node that is not a master, a delay on a shape that
// does not wait, a standalone shape, and no lock key.
func TestClusterFailoverRefusesBadFaults(t *testing.T) {
	c := startRedisCluster(t, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	nem := &Failover{Env: clusterEnv(c)}
	_, replica := keyRoles(t, ctx, c)
	for _, f := range []Fault{
		{Kind: KindFailover, Shape: ShapeClusterForce, Nodes: []string{replica}},
		{Kind: KindFailover, Shape: ShapeClusterForce, Nodes: []string{"n1", "n2"}},
		{Kind: KindFailover, Shape: ShapeClusterForce, Delay: time.Second},
		{Kind: KindFailover, Shape: "cluster/melt"},
	} {
		if err := nem.Start(ctx, f); !errors.Is(err, ErrBadFault) {
			t.Errorf("%v: %v, want ErrBadFault", f, err)
		}
	}
	if err := nem.Start(ctx, Fault{Kind: KindFailover, Shape: "kill/manual"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a standalone failover on a Redis Cluster: %v, want ErrUnsupported", err)
	}
	keyless := &Failover{Env: Env{Cluster: c}}
	if err := keyless.Start(ctx, Fault{Kind: KindFailover, Shape: ShapeClusterForce}); !errors.Is(err, errNoKey) {
		t.Errorf("failover without Env.Key: %v", err)
	}
	if m, r := keyRoles(t, ctx, c); r != replica {
		t.Errorf("after refused failovers: key master %s, replica %s; want the replica still %s", m, r, replica)
	}
	if got := c.InternalFaults(); len(got) > 0 {
		t.Errorf("internal faults: %v", got)
	}
}
