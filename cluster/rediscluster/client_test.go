package rediscluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// keyOn finds a key (prefix plus a number) whose slot the master owns.
func keyOn(t *testing.T, c *rediscluster.Cluster, master, prefix string) string {
	t.Helper()
	s, err := c.State(clustertest.Context(t, 5*time.Second))
	clustertest.Must(t, err)
	for i := 0; i < 10000; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		if s.Owner(rediscluster.SlotOf(k)) == master {
			return k
		}
	}
	t.Fatalf("no key %s* on %s", prefix, master)
	return ""
}

func TestClientReachesEveryMasterThroughItsProxies(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{})
	ctx := clustertest.Context(t, 20*time.Second)
	rc := clustertest.ClusterClient(t, c, "c1")
	masters, err := c.Masters(ctx)
	clustertest.Must(t, err)
	for _, m := range masters {
		k := keyOn(t, c, m, "k")
		if err := rc.Set(ctx, k, "v-"+m, 0).Err(); err != nil {
			t.Fatalf("SET %s (on %s): %v", k, m, err)
		}
		if got, err := clustertest.Admin(t, c, m, 3*time.Second).Get(ctx, k).Result(); err != nil || got != "v-"+m {
			t.Errorf("%s holds %s = %q, %v; want %q", m, k, got, err, "v-"+m)
		}
		if got, err := rc.Get(ctx, k).Result(); err != nil || got != "v-"+m {
			t.Errorf("GET %s = %q, %v", k, got, err)
		}
	}
	// Keys sharing a hash tag share a slot, as the server computes it.
	a, b := "{user42}.lock", "{user42}.fence"
	if rediscluster.SlotOf(a) != rediscluster.SlotOf(b) {
		t.Fatalf("slots of %s and %s differ", a, b)
	}
	if err := rc.MSet(ctx, a, "1", b, "2").Err(); err != nil {
		t.Fatalf("MSET of one hash tag: %v", err)
	}
	for _, k := range []string{a, b, "plain-key", "{}", "a{}b{c}"} {
		got, err := clustertest.Admin(t, c, "n1", 3*time.Second).ClusterKeySlot(ctx, k).Result()
		if err != nil || int(got) != rediscluster.SlotOf(k) {
			t.Errorf("CLUSTER KEYSLOT %q = %d, %v; SlotOf = %d", k, got, err, rediscluster.SlotOf(k))
		}
	}

	// The dialer never reaches a node around the client's proxies.
	own, err := c.AdminAddr("n1")
	clustertest.Must(t, err)
	if _, err := c.Dialer("c1")(ctx, "tcp", own); !errors.Is(err, rediscluster.ErrUnknownAddr) {
		t.Errorf("dial n1's own address: %v, want ErrUnknownAddr", err)
	}
	if _, err := c.ClusterOptions("nobody"); !errors.Is(err, cluster.ErrUnknownClient) {
		t.Errorf("options of an unknown client: %v, want ErrUnknownClient", err)
	}
}

func TestClientFollowsAskAndMovedAcrossAMigration(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{})
	ctx := clustertest.Context(t, 20*time.Second)
	rc := clustertest.ClusterClient(t, c, "c1")
	moved, stays := "{m}a", "{m}b"
	slot := rediscluster.SlotOf(moved)
	from, err := c.MasterOf(ctx, slot)
	clustertest.Must(t, err)
	to := "n2"
	if from == to {
		to = "n3"
	}
	for _, k := range []string{moved, stays} {
		clustertest.Must(t, rc.Set(ctx, k, "v-"+k, time.Minute).Err())
	}
	src, dst := clustertest.Admin(t, c, from, 3*time.Second), clustertest.Admin(t, c, to, 3*time.Second)
	srcID, _ := src.ClusterMyID(ctx).Result()
	dstID, _ := dst.ClusterMyID(ctx).Result()

	// Half a migration by hand: one key moved, the slot still the source's.
	clustertest.Must(t, dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err())
	clustertest.Must(t, src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err())
	dstAddr := announced(t, ctx, src, to, dstID)
	host, port := hostPort(t, dstAddr)
	clustertest.Must(t, src.Migrate(ctx, host, port, moved, 0, 5*time.Second).Err())
	if err := src.Get(ctx, moved).Err(); err == nil || !isRedirect(err, "ASK") {
		t.Fatalf("GET %s on the migrating source: %v, want ASK", moved, err)
	}
	// The target answers only with ASKING, so a value proves the client
	// followed the ASK.
	if got, err := rc.Get(ctx, moved).Result(); err != nil || got != "v-"+moved {
		t.Fatalf("GET %s mid-migration = %q, %v", moved, got, err)
	}
	if got, err := rc.Get(ctx, stays).Result(); err != nil || got != "v-"+stays {
		t.Fatalf("GET %s (not moved yet) = %q, %v", stays, got, err)
	}

	clustertest.Must(t, c.MigrateSlot(ctx, slot, to))
	if owner, err := c.MasterOf(ctx, slot); err != nil || owner != to {
		t.Fatalf("slot %d owner %q, %v; want %s", slot, owner, err, to)
	}
	if err := src.Get(ctx, stays).Err(); !isRedirect(err, "MOVED") {
		t.Fatalf("GET %s on the old owner: %v, want MOVED", stays, err)
	}
	// The client's slot map still names the old owner: MOVED sends it on.
	for _, k := range []string{moved, stays} {
		if got, err := rc.Get(ctx, k).Result(); err != nil || got != "v-"+k {
			t.Errorf("GET %s after the migration = %q, %v", k, got, err)
		}
		ttl, err := dst.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > time.Minute {
			t.Errorf("%s on %s: PTTL %v, %v; want its TTL kept", k, to, ttl, err)
		}
	}
}

func TestCutClientLinkFailsOnlyThatClient(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{})
	ctx := clustertest.Context(t, 20*time.Second)
	c1, c2 := clustertest.ClusterClient(t, c, "c1"), clustertest.ClusterClient(t, c, "c2")
	k := keyOn(t, c, "n1", "cut")
	clustertest.Must(t, c1.Set(ctx, k, "before", 0).Err())
	clustertest.Must(t, c2.Get(ctx, k).Err())
	clustertest.Must(t, c.Cut(ctx, cluster.Links("c1", "n1")))
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := c1.Set(short, k, "during", 0).Err()
	if err == nil {
		t.Fatal("c1's SET through its cut link succeeded")
	}
	if !errors.Is(err, rediscluster.ErrNoReply) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("c1's SET through its cut link: %v, want ErrNoReply or a deadline", err)
	}
	if err := c2.Set(ctx, k, "c2", 0).Err(); err != nil {
		t.Fatalf("c2's SET while c1's link is cut: %v", err)
	}
	clustertest.Must(t, c.Heal(ctx, cluster.Links("c1", "n1")))
	if got, err := c1.Get(ctx, k).Result(); err != nil || got != "c2" {
		t.Errorf("c1's GET after heal = %q, %v; want c2's value", got, err)
	}
}

// announced is the address of the node with id as the asking node lists it.
func announced(t *testing.T, ctx context.Context, rc *redis.Client, name, id string) string {
	t.Helper()
	nodes, err := rc.ClusterShards(ctx).Result()
	clustertest.Must(t, err)
	for _, sh := range nodes {
		for _, n := range sh.Nodes {
			if n.ID == id {
				return fmt.Sprintf("%s:%d", n.IP, n.Port)
			}
		}
	}
	t.Fatalf("%s (%s) not listed", name, id)
	return ""
}

// isRedirect reports whether err is a MOVED or ASK reply.
func isRedirect(err error, kind string) bool {
	return err != nil && len(err.Error()) > len(kind) && err.Error()[:len(kind)] == kind
}

// hostPort splits an address.
func hostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[:i], addr[i+1:]
		}
	}
	t.Fatalf("bad address %q", addr)
	return "", ""
}
