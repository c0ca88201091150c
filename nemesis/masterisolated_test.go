package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// A master-isolated partition of the lock key's master with c2 on the
// majority side: c2 is cut from the old master while c1 still reaches it
// and gets a write acknowledged that the replica never receives; Start
// returns once the replica is promoted. Stop heals the bus, the
// replication and c2's link, the old master rejoins as the new one's
// replica, and the acknowledged write is lost.
func TestMasterIsolatedPromotesReplica(t *testing.T) {
	c := startRedisCluster(t, "c1", "c2")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	lost := "lost:{lockstorm}" // in the lock key's slot
	master, replica := keyRoles(t, ctx, c)
	c1, c2 := clustertest.Dial(t, c, "c1", master, opTimeout), clustertest.Dial(t, c, "c2", master, opTimeout)

	p := &Partition{Env: clusterEnv(c)}
	f := Fault{Kind: KindPartition, Shape: ShapeMasterIsolated, Clients: []string{"c2"}}
	done := make(chan error, 1)
	begin := time.Now()
	go func() { done <- p.Start(ctx, f) }()
	waitInternalFault(t, ctx, c, master+": replication cut")
	if err := c1.Set(ctx, lost, "acknowledged", 0).Err(); err != nil {
		t.Fatalf("SET by c1 on %s with its replication cut: %v, want it acknowledged", master, err)
	}
	if err := set(c2, lost); err == nil {
		t.Errorf("c2 reached %s, which it is cut from", master)
	}
	clustertest.Must(t, <-done)
	started := time.Since(begin)
	t.Logf("start %v: %s", started.Round(time.Millisecond), p.Outcome(f))
	if o := p.Outcome(f); !strings.Contains(o, replica+" promoted") || !strings.Contains(o, "c2 cut from "+master) {
		t.Errorf("outcome %q", o)
	}
	if m, err := c.MasterOf(ctx, rediscluster.SlotOf(testKey)); err != nil || m != replica {
		t.Fatalf("key's master after Start: %q, %v; want the promoted %s", m, err, replica)
	}
	if got, want := c.InternalFaults(), []string{master + ": bus isolated", master + ": replication cut"}; !slices.Equal(got, want) {
		t.Errorf("internal faults during the fault: %v, want %v", got, want)
	}
	if err := c1.Ping(ctx).Err(); err != nil {
		t.Errorf("c1 cannot reach the isolated %s: %v", master, err)
	}
	if err := set(c2, "probe"); err == nil {
		t.Errorf("c2 reaches %s during the fault", master)
	}
	if err := p.Start(ctx, Fault{Kind: KindPartition, Shape: ShapeMasterIsolated}); !errors.Is(err, ErrBadFault) {
		t.Errorf("a second master isolated at once: %v, want ErrBadFault", err)
	}

	stopAt := time.Now()
	clustertest.Must(t, p.Stop(ctx, f))
	t.Logf("stop (heal, healthy) %v", time.Since(stopAt).Round(time.Millisecond))
	if got := c.InternalFaults(); len(got) > 0 {
		t.Errorf("internal faults after Stop: %v", got)
	}
	if got := c.Proxies().Faulty(); len(got) > 0 {
		t.Errorf("faulty client links after Stop: %v", got)
	}
	if r, err := c.ReplicaOf(ctx, replica); err != nil || r != master {
		t.Errorf("replica of %s after Stop: %q, %v; want the old master %s", replica, r, err, master)
	}
	if got, err := clustertest.ClusterClient(t, c, "c2").Get(ctx, lost).Result(); err != redis.Nil {
		t.Errorf("GET %s = %q, %v; want the write acknowledged by the isolated master lost", lost, got, err)
	}
	clustertest.Must(t, p.Stop(ctx, f)) // again: nothing left to heal
}
