package adapters_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// The failure classification of the redsync adapter (in-process "redsync"
// and the zoo's redsync-v4.18.1 entry alike), on the test cluster's
// redis-servers: each case sets the nodes up directly, then reads which
// sentinel the adapter answers.

// outcome names the sentinel err wraps: "ok", "fail" (ErrNotObtained or
// ErrNotHeld), "info" (ErrOutcomeUnknown), or "other".
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, lockimpl.ErrOutcomeUnknown) && !errors.Is(err, lockimpl.ErrNotObtained) && !errors.Is(err, lockimpl.ErrNotHeld):
		return "info"
	case errors.Is(err, lockimpl.ErrNotObtained), errors.Is(err, lockimpl.ErrNotHeld):
		return "fail"
	}
	return "other"
}

// takeOn stores another client's value under key on the named nodes.
func takeOn(t *testing.T, key string, nodes ...string) {
	t.Helper()
	for _, n := range nodes {
		if err := locktest.Admin(t, n).Set(context.Background(), key, "someone-else", 10*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// dropOn deletes key on the named nodes (an expiry).
func dropOn(t *testing.T, key string, nodes ...string) {
	t.Helper()
	for _, n := range nodes {
		if err := locktest.Admin(t, n).Del(context.Background(), key).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// redsyncOver builds the in-process adapter over c1's proxies to n nodes.
func redsyncOver(t *testing.T, nodes []redis.UniversalClient, opt lockimpl.Options) *adapters.Redsync {
	t.Helper()
	lk, err := adapters.NewRedsync(nodes, opt)
	if err != nil {
		t.Fatal(err)
	}
	return lk
}

func acquire(t *testing.T, lk lockimpl.Locker, key string, timeout time.Duration) (*lockimpl.Lease, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return lk.Acquire(ctx, key)
}

func mustAcquire(t *testing.T, lk lockimpl.Locker, key string) *lockimpl.Lease {
	t.Helper()
	l, err := acquire(t, lk, key, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func cut(t *testing.T, nodes ...string) {
	t.Helper()
	if err := locktest.Cluster.Cut(context.Background(), cluster.Links("c1", nodes...)); err != nil {
		t.Fatal(err)
	}
}

// slowReplies delays every reply to c1 by d.
func slowReplies(t *testing.T, d time.Duration) {
	t.Helper()
	links := cluster.Links("c1", "n1", "n2", "n3", "n4", "n5")
	if err := locktest.Cluster.AddLatency(context.Background(), links, cluster.Latency{Delay: d, Stream: cluster.Downstream}); err != nil {
		t.Fatal(err)
	}
}

var fast = lockimpl.Options{TTL: 2 * time.Second, NodeTimeout: 150 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond}

// Acquire: fail only when the nodes that may have granted cannot make a
// quorum; a quorum granted too late (ErrFailed) is unknown, since redsync
// drops the outcome of its give-back.
func TestRedsyncAcquireClassification(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, key string)
		opt   lockimpl.Options
		want  string
	}{
		{"quorum taken, the rest cut", func(t *testing.T, key string) { takeOn(t, key, "n1", "n2", "n3"); cut(t, "n4", "n5") }, fast, "fail"},
		{"minority taken, two cut", func(t *testing.T, key string) { takeOn(t, key, "n1", "n2"); cut(t, "n3", "n4") }, fast, "info"},
		{"granted too late", func(t *testing.T, key string) { slowReplies(t, 300*time.Millisecond) },
			lockimpl.Options{TTL: 200 * time.Millisecond, NodeTimeout: time.Second}, "info"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			locktest.Heal(t)
			key := locktest.Key(t)
			c.setup(t, key)
			_, err := acquire(t, redsyncOver(t, locktest.Proxied(t, "c1", 5), c.opt), key, 2500*time.Millisecond)
			if got := outcome(err); got != c.want {
				t.Fatalf("acquire: %s (%v), want %s", got, err, c.want)
			}
		})
	}
}

// An acquire whose deadline leaves less than one attempt (its SETs and
// its give-back) fails without sending anything.
func TestRedsyncAcquireNoTimeForAnAttempt(t *testing.T) {
	key := locktest.Key(t)
	lk := redsyncOver(t, locktest.Proxied(t, "c1", 5), fast)
	if _, err := acquire(t, lk, key, 100*time.Millisecond); outcome(err) != "fail" {
		t.Fatalf("acquire with 100 ms for a 2 x 150 ms attempt: %v, want ErrNotObtained", err)
	}
	if v := locktest.Get(t, "n1", key); v != "" {
		t.Fatalf("n1 holds %q: the attempt was sent", v)
	}
}

// Release: fail when a quorum answered "not ours" or no node may have
// deleted our value; a release that deleted it on some nodes while the
// others are in doubt, or not ours on fewer than a quorum, may have freed
// the lock: unknown.
func TestRedsyncReleaseClassification(t *testing.T) {
	cases := []struct {
		name  string
		nodes int
		setup func(t *testing.T, key string, clients []redis.UniversalClient)
		want  string
	}{
		{"quorum not ours", 5, func(t *testing.T, key string, _ []redis.UniversalClient) { takeOn(t, key, "n1", "n2", "n3") }, "fail"},
		{"expired everywhere", 5, func(t *testing.T, key string, _ []redis.UniversalClient) {
			dropOn(t, key, "n1", "n2", "n3", "n4", "n5")
		}, "fail"},
		{"expired on two, never sent to three", 5, func(t *testing.T, key string, c []redis.UniversalClient) {
			dropOn(t, key, "n1", "n2")
			for _, cl := range c[2:] {
				cl.Close()
			}
		}, "fail"},
		{"not ours on one, two cut", 5, func(t *testing.T, key string, _ []redis.UniversalClient) { takeOn(t, key, "n1"); cut(t, "n2", "n3") }, "info"},
		{"not ours on two of four", 4, func(t *testing.T, key string, _ []redis.UniversalClient) { takeOn(t, key, "n1", "n2") }, "info"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			locktest.Heal(t)
			key := locktest.Key(t)
			clients := locktest.Proxied(t, "c1", c.nodes)
			lk := redsyncOver(t, clients, fast)
			l := mustAcquire(t, lk, key)
			c.setup(t, key, clients)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := lk.Release(ctx, l); outcome(err) != c.want {
				t.Fatalf("release: %s (%v), want %s", outcome(err), err, c.want)
			}
		})
	}
}

// Extend: fail when the nodes that may have extended cannot make a
// quorum; a quorum extended after the validity it would give
// (ErrExtendFailed) is unknown: the nodes did extend.
func TestRedsyncExtendClassification(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, key string)
		want  string
	}{
		{"quorum not ours, the rest cut", func(t *testing.T, key string) { takeOn(t, key, "n1", "n2", "n3"); cut(t, "n4", "n5") }, "fail"},
		{"not ours on two, two cut", func(t *testing.T, key string) { takeOn(t, key, "n1", "n2"); cut(t, "n3", "n4") }, "info"},
		{"extended too late", func(t *testing.T, key string) { slowReplies(t, 300*time.Millisecond) }, "info"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			locktest.Heal(t)
			key := locktest.Key(t)
			lk := redsyncOver(t, locktest.Proxied(t, "c1", 5), lockimpl.Options{TTL: 250 * time.Millisecond, NodeTimeout: 100 * time.Millisecond})
			l := mustAcquire(t, lk, key)
			c.setup(t, key)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := lk.Extend(ctx, l); outcome(err) != c.want {
				t.Fatalf("extend: %s (%v), want %s", outcome(err), err, c.want)
			}
		})
	}
}

// Redsync needs nodes.
func TestRedsyncNoNodes(t *testing.T) {
	if _, err := adapters.NewRedsync(nil, lockimpl.Options{}); !errors.Is(err, lockimpl.ErrNoClients) {
		t.Fatalf("no nodes: %v, want ErrNoClients", err)
	}
}
