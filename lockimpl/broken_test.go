package lockimpl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// TestUnsafeDelDeletesOthersKey: A's lease expires, B takes the lock, A
// releases: unsafe-del deletes B's key (and a third client gets the lock
// while B still holds it); single, for contrast, refuses with lockimpl.ErrNotHeld.
func TestUnsafeDelDeletesOthersKey(t *testing.T) {
	locktest.ForEach(t, []string{"unsafe-del", "single"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		opt := lockimpl.Options{TTL: 150 * time.Millisecond, NodeTimeout: locktest.LoadedNodeTimeout}
		a, b, c := locktest.NewLock(t, name, "c1", opt), locktest.NewLock(t, name, "c2", opt), locktest.NewLock(t, name, "c3", opt)
		la, err := a.Acquire(ctx, key)
		clustertest.Must(t, err)
		time.Sleep(250 * time.Millisecond) // A "paused" past its lease
		lb, err := b.Acquire(ctx, key)
		clustertest.Must(t, err)
		errA := a.Release(ctx, la)
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		lc, errC := c.Acquire(cctx, key)
		cancel()
		switch name {
		case "unsafe-del":
			if errA != nil || errC != nil {
				t.Fatalf("unsafe-del: A release %v, C acquire %v; want both to succeed (the flaw)", errA, errC)
			}
			if !lb.Valid() {
				t.Fatal("B's lease expired: the overlap is not shown")
			}
			t.Logf("unsafe-del: C holds %s while B's lease is valid for %v more", lc.Token[:8], time.Until(lb.Validity()).Round(time.Millisecond))
		case "single":
			if !errors.Is(errA, lockimpl.ErrNotHeld) {
				t.Fatalf("single: A release %v, want ErrNotHeld", errA)
			}
			if !errors.Is(errC, lockimpl.ErrNotObtained) {
				t.Fatalf("single: C acquire %v while B holds, want ErrNotObtained", errC)
			}
			if got := locktest.Get(t, "n1", key); got != lb.Token {
				t.Fatalf("single: key holds %q, want B's", got)
			}
		}
	})
}

// TestUnsafeGetDelRace: latency on A's link stretches the gap between its
// GET and its DEL; A's lease expires in between, B takes the lock, and
// unsafe-getdel's DEL removes B's key while B's lease is valid. single's
// atomic compare-and-delete, in the same scenario, leaves B's key alone.
func TestUnsafeGetDelRace(t *testing.T) {
	locktest.ForEach(t, []string{"unsafe-getdel", "single"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		const ttl = 500 * time.Millisecond
		a := locktest.NewLock(t, name, "c1", lockimpl.Options{TTL: ttl, NodeTimeout: time.Second})
		b := locktest.NewLock(t, name, "c2", lockimpl.Options{TTL: ttl, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond})
		la, err := a.Acquire(ctx, key)
		clustertest.Must(t, err)
		t0 := time.Now()
		// 150ms each way: a round trip takes 300ms.
		clustertest.Must(t, locktest.Cluster.AddLatency(ctx, cluster.Links("c1", "n1"), cluster.Latency{Delay: 150 * time.Millisecond}))
		type res struct {
			l   *lockimpl.Lease
			err error
		}
		got := make(chan res, 1)
		go func() {
			bctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			l, err := b.Acquire(bctx, key)
			got <- res{l, err}
		}()
		time.Sleep(time.Until(t0.Add(150 * time.Millisecond)))
		// GET reaches the server at ~t0+300ms (A's key alive until
		// t0+500ms), its reply A at ~t0+450ms, the DEL the server at
		// ~t0+600ms: after B took the lock at ~t0+500ms.
		errA := a.Release(ctx, la)
		rb := <-got
		if rb.err != nil {
			t.Fatalf("B: %v", rb.err)
		}
		key2 := locktest.Get(t, "n1", key)
		t.Logf("A release: %v after %v; B acquired; key now %q", errA, time.Since(t0).Round(time.Millisecond), key2)
		switch name {
		case "unsafe-getdel":
			if errA != nil {
				t.Fatalf("unsafe-getdel release: %v", errA)
			}
			if key2 != "" || !rb.l.Valid() {
				t.Fatalf("the race did not show: key %q, B valid %v", key2, rb.l.Valid())
			}
		case "single":
			if key2 != rb.l.Token {
				t.Fatalf("single: key holds %q, want B's token", key2)
			}
		}
	})
}

// TestUnsafeNoTTLNeverExpires: a holder that "crashes" (never releases)
// leaves an unsafe-nottl key with no expiry; nobody gets the lock again.
// single, for contrast, frees it after its TTL.
func TestUnsafeNoTTLNeverExpires(t *testing.T) {
	locktest.ForEach(t, []string{"unsafe-nottl", "single"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		opt := lockimpl.Options{TTL: 100 * time.Millisecond, NodeTimeout: locktest.LoadedNodeTimeout}
		if _, err := locktest.NewLock(t, name, "c1", opt).Acquire(ctx, key); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // 3x TTL, the holder is gone
		bctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_, err := locktest.NewLock(t, name, "c2", opt).Acquire(bctx, key)
		pttl, perr := locktest.Admin(t, "n1").PTTL(ctx, key).Result()
		if perr != nil {
			t.Fatal(perr)
		}
		switch name {
		case "unsafe-nottl":
			if !errors.Is(err, lockimpl.ErrNotObtained) || pttl != -1 {
				t.Fatalf("unsafe-nottl: acquire %v, PTTL %v; want ErrNotObtained and no expiry (-1)", err, pttl)
			}
		case "single":
			if err != nil {
				t.Fatalf("single: %v", err)
			}
		}
	})
}

// TestUnsafeOverclaimCountsFromTheReply: with the reply from the node
// delayed by 150 ms, unsafe-overclaim's lease claims a full TTL from the
// reply, past the key's real expiry (the SET landed 150 ms earlier);
// single counts from the send, minus drift, and claims less than the key
// lives.
func TestUnsafeOverclaimCountsFromTheReply(t *testing.T) {
	locktest.ForEach(t, []string{"unsafe-overclaim", "single"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		ttl, delay := 500*time.Millisecond, 150*time.Millisecond
		a := locktest.NewLock(t, name, "c1", lockimpl.Options{TTL: ttl, NodeTimeout: time.Second})
		clustertest.Must(t, locktest.Cluster.AddLatency(ctx, cluster.Links("c1", "n1"), cluster.Latency{Delay: delay, Stream: cluster.Downstream}))
		sent := time.Now()
		l, err := a.Acquire(ctx, key)
		if rerr := locktest.Cluster.RemoveLatency(ctx, cluster.Links("c1", "n1")); rerr != nil {
			t.Fatal(rerr)
		}
		clustertest.Must(t, err)
		claimed := l.Validity().Sub(sent)
		switch name {
		case "unsafe-overclaim":
			if claimed < ttl+delay*2/3 {
				t.Fatalf("unsafe-overclaim claims %v from the send, want about TTL + the reply's delay (%v)", claimed, ttl+delay)
			}
		case "single":
			if claimed > ttl {
				t.Fatalf("single claims %v from the send, more than the TTL %v", claimed, ttl)
			}
		}
		_ = a.Release(ctx, l)
	})
}
