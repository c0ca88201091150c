package lockimpl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// On a master without a replica no WAIT 1 is ever acknowledged: single-wait
// never grants the lock, reports not obtained (certain), and leaves no key
// behind, while single grants it at once on the same node.
func TestSingleWaitNeedsAReplica(t *testing.T) {
	key := locktest.Key(t)
	opt := lockimpl.Options{TTL: time.Second, NodeTimeout: 400 * time.Millisecond}
	lock := locktest.NewLock(t, "single-wait", "c1", opt)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if l, err := lock.Acquire(ctx, key); !errors.Is(err, lockimpl.ErrNotObtained) {
		t.Fatalf("acquire without a replica: lease %v, err %v; want ErrNotObtained", l, err)
	}
	if v := locktest.Get(t, "n1", key); v != "" {
		t.Fatalf("an unreplicated attempt left the key holding %q", v)
	}
	single := locktest.NewLock(t, "single", "c1", opt)
	l, err := single.Acquire(context.Background(), key)
	if err != nil {
		t.Fatalf("single on the same node: %v", err)
	}
	_ = single.Release(context.Background(), l)
}
