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

func TestSlotMigrateDraw(t *testing.T) {
	tp := clusterTopo()
	hit := map[string]bool{}
	for _, f := range draws(&SlotMigrate{}, 4, tp, 50) {
		if f.Kind != KindSlotMigrate || len(f.Nodes) != 1 || f.Duration != tp.TTL || len(f.Clients) != 0 {
			t.Fatalf("slot-migrate %v: want one node and a window of one TTL", f)
		}
		hit[f.Nodes[0]] = true
	}
	if len(hit) != len(tp.Nodes) {
		t.Errorf("50 migrations target %v, want every node's shard", hit)
	}
	if a := (&SlotMigrate{}).Aim(NewRand(4), Fault{Kind: KindSlotMigrate, Nodes: []string{"n2"}}, tp, 0); a.Target != AimLease || !slices.Equal(a.Nodes, []string{"n2"}) {
		t.Errorf("aimed slot-migrate %v: want it timed on a lease, its target kept", a)
	}
}

// The lock key's slot moves to the master of the named node's shard (a
// replica names its master; the owner itself names the next master),
// with the lock key and its TTL; a cluster client still finds it, and the
// start's outcome says what moved. Stop undoes nothing.
func TestSlotMigrateMovesTheKeyWithItsTTL(t *testing.T) {
	c := startRedisCluster(t, "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc := clustertest.ClusterClient(t, c, "c1")
	slot := rediscluster.SlotOf(testKey)
	clustertest.Must(t, cc.Set(ctx, testKey, "tok", 30*time.Second).Err())
	clustertest.Must(t, cc.Set(ctx, "fence:{lockstorm}", 7, 0).Err())
	nem := &SlotMigrate{Env: clusterEnv(c)}

	owner, _ := keyRoles(t, ctx, c)
	masters, err := c.Masters(ctx)
	clustertest.Must(t, err)
	next := after(masters, owner)
	other := slices.DeleteFunc(slices.Clone(masters), func(m string) bool { return m == owner || m == next })[0]
	otherReplica, err := c.ReplicaOf(ctx, other)
	clustertest.Must(t, err)
	for _, x := range []struct{ node, want string }{
		{owner, next},         // the owner: the next master
		{otherReplica, other}, // a replica: its master
	} {
		from, _ := keyRoles(t, ctx, c)
		f := Fault{Kind: KindSlotMigrate, Nodes: []string{x.node}}
		begin := time.Now()
		clustertest.Must(t, nem.Start(ctx, f))
		t.Logf("%v: start %v: %s", f, time.Since(begin).Round(time.Millisecond), nem.Outcome(f))
		clustertest.Must(t, nem.Stop(ctx, f))
		if m, err := c.MasterOf(ctx, slot); err != nil || m != x.want {
			t.Fatalf("%v: slot %d owned by %q, %v; want %s", f, slot, m, err, x.want)
		}
		if o := nem.Outcome(f); !strings.Contains(o, "from "+from+" to "+x.want) {
			t.Errorf("outcome %q", o)
		}
		on := clustertest.Admin(t, c, x.want, opTimeout)
		if ttl, err := on.PTTL(ctx, testKey).Result(); err != nil || ttl <= 0 || ttl > 30*time.Second {
			t.Errorf("%s on %s: PTTL %v, %v; want the TTL kept", testKey, x.want, ttl, err)
		}
		if ttl, err := on.PTTL(ctx, "fence:{lockstorm}").Result(); err != nil || ttl != -1 {
			t.Errorf("fence on %s: PTTL %v, %v; want a key without expiry", x.want, ttl, err)
		}
		if v, err := cc.Get(ctx, testKey).Result(); err != nil || v != "tok" {
			t.Errorf("cluster client GET after the move: %q, %v", v, err)
		}
	}
	clustertest.Must(t, c.WaitHealthy(ctx))
}

// A migration without a lock key, or naming several nodes, is refused;
// the slot stays where it is.
func TestSlotMigrateRefusesBadFaults(t *testing.T) {
	c := startRedisCluster(t, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	owner, _ := keyRoles(t, ctx, c)
	keyless := &SlotMigrate{Env: Env{Cluster: c}}
	if err := keyless.Start(ctx, Fault{Kind: KindSlotMigrate}); !errors.Is(err, errNoKey) {
		t.Errorf("without Env.Key: %v", err)
	}
	nem := &SlotMigrate{Env: clusterEnv(c)}
	if err := nem.Start(ctx, Fault{Kind: KindSlotMigrate, Nodes: []string{"n1", "n2"}}); !errors.Is(err, ErrBadFault) {
		t.Errorf("two nodes: %v, want ErrBadFault", err)
	}
	if err := nem.Start(ctx, Fault{Kind: KindSlotMigrate, Nodes: []string{"n9"}}); err == nil {
		t.Error("a migration to n9's shard succeeded")
	}
	if m, _ := keyRoles(t, ctx, c); m != owner {
		t.Errorf("slot moved from %s to %s by refused migrations", owner, m)
	}
}
