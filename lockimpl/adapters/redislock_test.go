package adapters_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// The failure classification of the redislock adapter (in-process
// "redislock" and the zoo's redislock entries alike) on one real
// redis-server, n1 through c1's proxy.
func TestRedislockClassification(t *testing.T) {
	opt := lockimpl.Options{TTL: 250 * time.Millisecond, NodeTimeout: 100 * time.Millisecond}
	cases := []struct {
		name string
		run  func(t *testing.T, key string) error
		want string
	}{
		{"acquire of a key taken", func(t *testing.T, key string) error {
			takeOn(t, key, "n1")
			_, err := acquire(t, adapters.NewRedislock(locktest.Proxied(t, "c1", 1)[0], opt), key, 300*time.Millisecond)
			return err
		}, "fail"},
		{"acquire never sent", func(t *testing.T, key string) error {
			c := locktest.Proxied(t, "c1", 1)[0]
			c.Close()
			_, err := acquire(t, adapters.NewRedislock(c, opt), key, 300*time.Millisecond)
			return err
		}, "fail"},
		{"release of an expired lease", func(t *testing.T, key string) error {
			lk := adapters.NewRedislock(locktest.Proxied(t, "c1", 1)[0], opt)
			l := mustAcquire(t, lk, key)
			dropOn(t, key, "n1")
			return lk.Release(context.Background(), l)
		}, "fail"},
		{"release cut off", func(t *testing.T, key string) error {
			lk := adapters.NewRedislock(locktest.Proxied(t, "c1", 1)[0], opt)
			l := mustAcquire(t, lk, key)
			cut(t, "n1")
			return lk.Release(context.Background(), l)
		}, "info"},
		{"extend of a lease taken over", func(t *testing.T, key string) error {
			lk := adapters.NewRedislock(locktest.Proxied(t, "c1", 1)[0], opt)
			l := mustAcquire(t, lk, key)
			takeOn(t, key, "n1")
			return lk.Extend(context.Background(), l)
		}, "fail"},
		{"extend refreshed too late", func(t *testing.T, key string) error {
			slow := lockimpl.Options{TTL: 250 * time.Millisecond, NodeTimeout: time.Second}
			lk := adapters.NewRedislock(locktest.Proxied(t, "c1", 1)[0], slow)
			l := mustAcquire(t, lk, key)
			slowReplies(t, 300*time.Millisecond)
			return lk.Extend(context.Background(), l)
		}, "info"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			locktest.Heal(t)
			if err := c.run(t, locktest.Key(t)); outcome(err) != c.want {
				t.Fatalf("%s (%v), want %s", outcome(err), err, c.want)
			}
		})
	}
}

// The zoo's build renews the lease by itself past its TTL, reports the
// first failed refresh as lost, and renews no more once released.
func TestRedislockRenewed(t *testing.T) {
	opt := lockimpl.Options{TTL: 300 * time.Millisecond, NodeTimeout: locktest.LoadedNodeTimeout}
	lk := adapters.NewRedislockRenewed(locktest.Proxied(t, "c1", 1)[0], opt)
	key := locktest.Key(t)
	l := mustAcquire(t, lk, key)
	first := l.Validity()
	time.Sleep(500 * time.Millisecond)
	if !l.Valid() || !l.Validity().After(first) {
		t.Fatalf("after 500 ms of a 300 ms TTL: valid %v, validity moved %v (err %v)", l.Valid(), l.Validity().After(first), l.Err())
	}
	if err := lk.Release(context.Background(), l); err != nil {
		t.Fatalf("release: %v", err)
	}
	if !errors.Is(l.Err(), lockimpl.ErrReleased) {
		t.Fatalf("released lease's Err = %v, want ErrReleased", l.Err())
	}

	l = mustAcquire(t, lk, key)
	defer lk.Release(context.Background(), l)
	takeOn(t, key, "n1")
	select {
	case <-l.Done():
		if !errors.Is(l.Err(), lockimpl.ErrLost) {
			t.Fatalf("lost lease's Err = %v, want ErrLost", l.Err())
		}
	case <-time.After(time.Second):
		t.Fatal("a lease whose key was taken over was not reported lost")
	}
}
