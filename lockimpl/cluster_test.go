package lockimpl_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// The single-node locks on a real Redis Cluster (three masters), each
// through one ClusterClient for the whole cluster, on hash-tagged keys.
var onCluster = []string{"single", "renewable", "fenced", "fair", "fair-naive"}

// clients is a lock's client list on a cluster: the one cluster client.
func clients(c redis.UniversalClient) []redis.UniversalClient { return []redis.UniversalClient{c} }

// clusterLock builds the named lock on its own cluster client.
func clusterLock(t *testing.T, rc *locktest.RedisCluster, name string, opt lockimpl.Options) lockimpl.Locker {
	t.Helper()
	l, err := lockimpl.New(name, clients(rc.Client(t)), opt)
	clustertest.Must(t, err)
	return l
}

// TestClusterLifecycle: on the cluster, A acquires (the key holds its
// token), B cannot while A holds, A extends (where offered) and releases,
// B then acquires (with a larger fence for fenced), and A's second release
// is ErrNotHeld. Every script runs by EVALSHA after the masters' script
// caches were flushed, so the NOSCRIPT fallback to EVAL is exercised.
func TestClusterLifecycle(t *testing.T) {
	rc := locktest.SharedRedisCluster(t)
	admin := rc.Client(t)
	for _, name := range onCluster {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			key := "lock:" + name + ":{t1}"
			if err := admin.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
				return m.ScriptFlush(ctx).Err()
			}); err != nil {
				t.Fatal(err)
			}
			evalsBefore := evals(t, admin)
			opt := lockimpl.Options{TTL: time.Second, RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond, NodeTimeout: 200 * time.Millisecond}
			a, b := clusterLock(t, rc, name, opt), clusterLock(t, rc, name, opt)
			clustertest.Must(t, lockimpl.CheckSlots(a, key))
			la, err := a.Acquire(ctx, key)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			if got, err := admin.Get(ctx, key).Result(); err != nil || got != la.Token {
				t.Fatalf("key holds %q (%v), want A's token", got, err)
			}
			bctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
			_, err = b.Acquire(bctx, key)
			cancel()
			if !errors.Is(err, lockimpl.ErrNotObtained) {
				t.Fatalf("B acquired while A holds: %v, want ErrNotObtained", err)
			}
			if ext, ok := a.(lockimpl.Extender); ok {
				before := la.Validity()
				time.Sleep(5 * time.Millisecond)
				if err := ext.Extend(ctx, la); err != nil {
					t.Fatalf("extend: %v", err)
				}
				if !la.Validity().After(before) {
					t.Fatalf("extend did not move the validity: %v -> %v", before, la.Validity())
				}
			}
			if err := a.Release(ctx, la); err != nil {
				t.Fatalf("release: %v", err)
			}
			lb, err := b.Acquire(ctx, key)
			if err != nil {
				t.Fatalf("B acquire after release: %v", err)
			}
			defer b.Release(ctx, lb)
			if lockimpl.IssuesFences(name) && !(la.Fence > 0 && lb.Fence > la.Fence) {
				t.Fatalf("fences A %d, B %d: want 0 < A < B", la.Fence, lb.Fence)
			}
			if err := a.Release(ctx, la); !errors.Is(err, lockimpl.ErrNotHeld) {
				t.Fatalf("second release: %v, want ErrNotHeld", err)
			}
			if evals(t, admin) == evalsBefore {
				t.Fatal("no EVAL after the script caches were flushed: the NOSCRIPT fallback did not run")
			}
		})
	}
}

// evals is the number of EVAL commands the cluster's masters have run.
func evals(t *testing.T, c *redis.ClusterClient) int64 {
	t.Helper()
	var n atomic.Int64
	err := c.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "commandstats").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\n") {
			if rest, ok := strings.CutPrefix(line, "cmdstat_eval:calls="); ok {
				v, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				if err != nil {
					return err
				}
				n.Add(v)
			}
		}
		return nil
	})
	clustertest.Must(t, err)
	return n.Load()
}

// TestClusterExclusion: three clients, each with its own cluster client,
// contend for one hash-tagged key; an in-process holder count never
// exceeds one and everyone gets the lock every round.
func TestClusterExclusion(t *testing.T) {
	rc := locktest.SharedRedisCluster(t)
	for _, name := range onCluster {
		t.Run(name, func(t *testing.T) {
			key := "excl:" + name + ":{t1}"
			opt := lockimpl.Options{TTL: 500 * time.Millisecond, RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond, NodeTimeout: 200 * time.Millisecond}
			const workers, rounds = 3, 5
			var holders, overlaps, acquired atomic.Int64
			var lastFence atomic.Int64
			var wg sync.WaitGroup
			for range workers {
				lk := clusterLock(t, rc, name, opt)
				wg.Go(func() {
					for range rounds {
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
						l, err := lk.Acquire(ctx, key)
						cancel()
						if err != nil {
							t.Errorf("acquire: %v", err)
							return
						}
						if holders.Add(1) != 1 {
							overlaps.Add(1)
						}
						if lockimpl.IssuesFences(name) && l.Fence <= lastFence.Swap(l.Fence) {
							t.Errorf("fence %d not above the previous holder's", l.Fence)
						}
						acquired.Add(1)
						time.Sleep(2 * time.Millisecond)
						holders.Add(-1)
						if err := lk.Release(context.Background(), l); err != nil {
							t.Errorf("release: %v", err)
							return
						}
					}
				})
			}
			wg.Wait()
			if n := overlaps.Load(); n != 0 {
				t.Fatalf("%d overlapping critical sections", n)
			}
			if got := acquired.Load(); got != workers*rounds {
				t.Fatalf("acquired %d times, want %d", got, workers*rounds)
			}
		})
	}
}

// TestClusterRenewableWatchdog: on the cluster the watchdog keeps a lease
// alive well past its TTL; another client cannot take it meanwhile.
func TestClusterRenewableWatchdog(t *testing.T) {
	rc := locktest.SharedRedisCluster(t)
	ctx := context.Background()
	const key = "renew:{t1}"
	const ttl = 200 * time.Millisecond
	opt := lockimpl.Options{TTL: ttl, NodeTimeout: 50 * time.Millisecond}
	a, b := clusterLock(t, rc, "renewable", opt), clusterLock(t, rc, "renewable", opt)
	renewals := atomic.Int64{}
	l, err := a.Acquire(ctx, key)
	clustertest.Must(t, err)
	l.ObserveValidity(func(_, _ time.Time) { renewals.Add(1) })
	time.Sleep(3 * ttl)
	select {
	case <-l.Done():
		t.Fatalf("lease lost: %v", l.Err())
	default:
	}
	if renewals.Load() == 0 {
		t.Fatal("no renewal in three TTLs")
	}
	bctx, cancel := context.WithTimeout(ctx, ttl/2)
	defer cancel()
	if _, err := b.Acquire(bctx, key); !errors.Is(err, lockimpl.ErrNotObtained) {
		t.Fatalf("B during A's renewed lease: %v, want ErrNotObtained", err)
	}
	clustertest.Must(t, a.Release(ctx, l))
}

// TestClusterCrossSlot: unsafe-crossslot's acquire script names keys in
// two slots; the cluster refuses it and Acquire says so at once with
// ErrCrossSlot (not a timeout, not "not obtained"), having taken nothing.
func TestClusterCrossSlot(t *testing.T) {
	rc := locktest.SharedRedisCluster(t)
	const key = "lock:{t1}"
	lk := clusterLock(t, rc, "unsafe-crossslot", lockimpl.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := lk.Acquire(ctx, key)
	if !errors.Is(err, lockimpl.ErrCrossSlot) || errors.Is(err, lockimpl.ErrNotObtained) || ctx.Err() != nil {
		t.Fatalf("acquire on the cluster: %v (ctx %v), want ErrCrossSlot before the deadline", err, ctx.Err())
	}
	t.Log(err)
	if n, err := rc.Client(t).Exists(context.Background(), key).Result(); err != nil || n != 0 {
		t.Fatalf("lock key exists %d (%v) after a refused script", n, err)
	}
}

// TestUnsafeCrossSlotStandalone: on one standalone node unsafe-crossslot
// is a correct fenced lock, its counter under the untagged key.
func TestUnsafeCrossSlotStandalone(t *testing.T) {
	locktest.FencesIncrease(t, []string{"unsafe-crossslot"})
	ctx := context.Background()
	key := locktest.Key(t)
	lk := locktest.NewLock(t, "unsafe-crossslot", "c1", lockimpl.Options{})
	l, err := lk.Acquire(ctx, key)
	clustertest.Must(t, err)
	defer lk.Release(ctx, l)
	if got := locktest.Get(t, "n1", "fence_counter:"+key); got == "" || got != strconv.FormatInt(l.Fence, 10) {
		t.Fatalf("counter fence_counter:%s = %q, want the lease's fence %d", key, got, l.Fence)
	}
}

// TestRefusedIsRetried: a lock pointed at a master that does not own the
// key's slot is answered MOVED on every attempt. A MOVED reply means the
// command did not run, so Acquire keeps retrying and ends certain
// (ErrNotObtained), not with an unknown outcome.
func TestRefusedIsRetried(t *testing.T) {
	rc := locktest.SharedRedisCluster(t)
	const key = "lock:{t1}"
	slot := lockimpl.HashSlot(key)
	wrong := (slot/(lockimpl.Slots/len(rc.Addrs)) + 1) % len(rc.Addrs) // a master outside the key's slot range
	node := rc.Node(t, wrong)
	ctx := context.Background()
	err := node.Get(ctx, key).Err()
	if _, moved := redis.IsMovedError(err); !moved || !lockimpl.Refused(err) || lockimpl.NotSent(err) {
		t.Fatalf("GET on the wrong master: %v; want a MOVED reply that Refused (not NotSent) recognises", err)
	}
	for _, name := range []string{"single", "fenced", "fair"} {
		lk, err := lockimpl.New(name, clients(node), lockimpl.Options{})
		clustertest.Must(t, err)
		actx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err = lk.Acquire(actx, key)
		cancel()
		if !errors.Is(err, lockimpl.ErrNotObtained) || errors.Is(err, lockimpl.ErrOutcomeUnknown) {
			t.Errorf("%s on the wrong master: %v, want ErrNotObtained", name, err)
		}
	}
}
