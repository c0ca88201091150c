package lockimpl_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// waitQueue waits until the fair lock's queue for key has n waiters.
func waitQueue(t *testing.T, key string, n int64) {
	t.Helper()
	a := locktest.Admin(t, "n1")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if got, err := a.ZCard(context.Background(), lockimpl.QueueKey(key)).Result(); err == nil && got == n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("queue of %q never reached %d waiters", key, n)
}

// TestFairFIFO: waiters that queued in the order c2, c3, c4 behind a
// holder get the lock in that order.
func TestFairFIFO(t *testing.T) {
	locktest.ForEach(t, []string{"fair", "fair-naive"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		opt := lockimpl.Options{TTL: 2 * time.Second, RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond}
		holder := locktest.NewLock(t, name, "c1", opt)
		hl, err := holder.Acquire(ctx, key)
		clustertest.Must(t, err)
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		for i, c := range []string{"c2", "c3", "c4"} {
			lk := locktest.NewLock(t, name, c, opt)
			wg.Add(1)
			go func() {
				defer wg.Done()
				actx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				l, err := lk.Acquire(actx, key)
				if err != nil {
					t.Errorf("%s: %v", c, err)
					return
				}
				mu.Lock()
				order = append(order, c)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				if err := lk.Release(ctx, l); err != nil {
					t.Errorf("%s release: %v", c, err)
				}
			}()
			waitQueue(t, key, int64(i+1))
		}
		clustertest.Must(t, holder.Release(ctx, hl))
		wg.Wait()
		if want := []string{"c2", "c3", "c4"}; !slices.Equal(order, want) {
			t.Fatalf("acquisition order %v, want %v", order, want)
		}
	})
}

// TestFairDeadWaiter: a waiter at the head of the queue dies (its links
// are cut, so it can neither poll nor leave). The fixed fair lock drops it
// after WaiterTimeout and the next waiter gets the lock; fair-naive keeps
// the dead head forever and the next waiter starves.
func TestFairDeadWaiter(t *testing.T) {
	const bound = 300 * time.Millisecond
	locktest.ForEach(t, []string{"fair", "fair-naive"}, func(t *testing.T, name, key string) {
		ctx := context.Background()
		opt := lockimpl.Options{TTL: time.Second, RetryMin: time.Millisecond, RetryMax: 20 * time.Millisecond, WaiterTimeout: bound}
		holder := locktest.NewLock(t, name, "c1", opt)
		hl, err := holder.Acquire(ctx, key)
		clustertest.Must(t, err)
		dead := locktest.NewLock(t, name, "c2", opt)
		deadErr := make(chan error, 1)
		go func() {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := dead.Acquire(dctx, key)
			deadErr <- err
		}()
		waitQueue(t, key, 1)
		clustertest.Must(t, locktest.Cluster.Cut(ctx, cluster.Links("c2", "n1")))
		if err := <-deadErr; err == nil {
			t.Fatal("dead waiter acquired through a cut link")
		}
		next := locktest.NewLock(t, name, "c3", opt)
		type result struct {
			l   *lockimpl.Lease
			err error
			at  time.Time
		}
		res := make(chan result, 1)
		nctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		go func() {
			l, err := next.Acquire(nctx, key)
			res <- result{l, err, time.Now()}
		}()
		waitQueue(t, key, 2)
		released := time.Now()
		clustertest.Must(t, holder.Release(ctx, hl))
		r := <-res
		switch name {
		case "fair":
			if r.err != nil {
				t.Fatalf("next waiter starved behind a dead head: %v", r.err)
			}
			t.Logf("next waiter got the lock %v after release (waiter bound %v)", r.at.Sub(released).Round(time.Millisecond), bound)
			if r.at.Sub(released) > bound+500*time.Millisecond {
				t.Errorf("next waiter waited %v, bound %v", r.at.Sub(released), bound)
			}
			_ = next.Release(ctx, r.l)
		case "fair-naive":
			if !errors.Is(r.err, lockimpl.ErrNotObtained) {
				t.Fatalf("fair-naive: next waiter got %v, want ErrNotObtained (starved)", r.err)
			}
			head, err := locktest.Admin(t, "n1").ZRange(ctx, lockimpl.QueueKey(key), 0, 0).Result()
			if err != nil || len(head) != 1 {
				t.Fatalf("fair-naive queue head: %v %v", head, err)
			}
			t.Logf("fair-naive: dead waiter still at the head after %v", time.Since(released).Round(time.Millisecond))
		}
	})
}
