package adapters_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
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
		clustertest.Must(t, locktest.Admin(t, n).Set(context.Background(), key, "someone-else", 10*time.Second).Err())
	}
}

// dropOn deletes key on the named nodes (an expiry).
func dropOn(t *testing.T, key string, nodes ...string) {
	t.Helper()
	for _, n := range nodes {
		clustertest.Must(t, locktest.Admin(t, n).Del(context.Background(), key).Err())
	}
}

// redsyncOver builds the in-process adapter over c1's proxies to n nodes.
func redsyncOver(t *testing.T, nodes []redis.UniversalClient, opt lockimpl.Options) *adapters.Redsync {
	t.Helper()
	lk, err := adapters.NewRedsync(nodes, opt)
	clustertest.Must(t, err)
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
	clustertest.Must(t, err)
	return l
}

func cut(t *testing.T, nodes ...string) {
	t.Helper()
	clustertest.Must(t, locktest.Cluster.Cut(context.Background(), cluster.Links("c1", nodes...)))
}

// slowReplies delays every reply to c1 by d.
func slowReplies(t *testing.T, d time.Duration) {
	t.Helper()
	links := cluster.Links("c1", "n1", "n2", "n3", "n4", "n5")
	clustertest.Must(t, locktest.Cluster.AddLatency(context.Background(), links, cluster.Latency{Delay: d, Stream: cluster.Downstream}))
}

var fast = lockimpl.Options{TTL: 2 * time.Second, NodeTimeout: 150 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond}

// takeCut is a classification case's setup: another client's value on
// the nodes taken, c1's links to the nodes cutNodes.
func takeCut(taken []string, cutNodes ...string) func(*testing.T, string, []redis.UniversalClient) {
	return func(t *testing.T, key string, _ []redis.UniversalClient) {
		takeOn(t, key, taken...)
		if len(cutNodes) > 0 {
			cut(t, cutNodes...)
		}
	}
}

// Acquire and extend fail only when the nodes that may have acted cannot
// make a quorum; a quorum that acted too late (ErrFailed, ErrExtendFailed)
// is unknown, since redsync drops the outcome of its give-back. Release
// fails when a quorum answered "not ours" or no node may have deleted our
// value; deleting it on some nodes, or not ours on fewer than a quorum,
// may have freed the lock: unknown.
func TestRedsyncClassification(t *testing.T) {
	late := func(t *testing.T, _ string, _ []redis.UniversalClient) { slowReplies(t, 300*time.Millisecond) }
	short := lockimpl.Options{TTL: 250 * time.Millisecond, NodeTimeout: 100 * time.Millisecond}
	n := []string{"n1", "n2", "n3", "n4", "n5"}
	cases := []struct {
		op, name string
		nodes    int
		opt      lockimpl.Options
		setup    func(t *testing.T, key string, clients []redis.UniversalClient)
		want     string
	}{
		{"acquire", "quorum taken, the rest cut", 5, fast, takeCut(n[:3], "n4", "n5"), "fail"},
		{"acquire", "minority taken, two cut", 5, fast, takeCut(n[:2], "n3", "n4"), "info"},
		{"acquire", "granted too late", 5, lockimpl.Options{TTL: 200 * time.Millisecond, NodeTimeout: time.Second}, late, "info"},
		{"release", "quorum not ours", 5, fast, takeCut(n[:3]), "fail"},
		{"release", "expired everywhere", 5, fast, func(t *testing.T, key string, _ []redis.UniversalClient) { dropOn(t, key, n...) }, "fail"},
		{"release", "expired on two, never sent to three", 5, fast, func(t *testing.T, key string, c []redis.UniversalClient) {
			dropOn(t, key, "n1", "n2")
			for _, cl := range c[2:] {
				cl.Close()
			}
		}, "fail"},
		{"release", "not ours on one, two cut", 5, fast, takeCut(n[:1], "n2", "n3"), "info"},
		{"release", "not ours on two of four", 4, fast, takeCut(n[:2]), "info"},
		{"extend", "quorum not ours, the rest cut", 5, short, takeCut(n[:3], "n4", "n5"), "fail"},
		{"extend", "not ours on two, two cut", 5, short, takeCut(n[:2], "n3", "n4"), "info"},
		{"extend", "extended too late", 5, short, late, "info"},
	}
	for _, c := range cases {
		t.Run(c.op+": "+c.name, func(t *testing.T) {
			locktest.Heal(t)
			key := locktest.Key(t)
			clients := locktest.Proxied(t, "c1", c.nodes)
			lk := redsyncOver(t, clients, c.opt)
			var err error
			if c.op == "acquire" {
				c.setup(t, key, clients)
				_, err = acquire(t, lk, key, 2500*time.Millisecond)
			} else {
				l := mustAcquire(t, lk, key)
				c.setup(t, key, clients)
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				if c.op == "release" {
					err = lk.Release(ctx, l)
				} else {
					err = lk.Extend(ctx, l)
				}
			}
			if got := outcome(err); got != c.want {
				t.Fatalf("%s: %s (%v), want %s", c.op, got, err, c.want)
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

// Redsync needs nodes.
func TestRedsyncNoNodes(t *testing.T) {
	if _, err := adapters.NewRedsync(nil, lockimpl.Options{}); !errors.Is(err, lockimpl.ErrNoClients) {
		t.Fatalf("no nodes: %v, want ErrNoClients", err)
	}
}
