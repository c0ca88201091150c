package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/protocol"
)

// fairTTL is long enough that no lease expires during a fair-lock test:
// every hand-over is a release.
const fairTTL = 3000

// waitQueued waits until the fair lock's queue for k holds n waiters.
func waitQueued(t *testing.T, k string, n int64) {
	t.Helper()
	for deadline := time.Now().Add(waitLine); node.C.ZCard(context.Background(), k+":queue").Val() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("the queue %s:queue never held %d waiters", k, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The seed's fair lock grants in arrival order: of two queued waiters
// the first gets the lock at the release, the second only after the
// first releases.
func TestSeedFairFIFO(t *testing.T) {
	holder := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	first := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	second := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	k := key(t)
	h := holder.acquire(k, fairTTL, 0)
	if h.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", h)
	}
	wait := protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: fairTTL, TimeoutMillis: 2 * waitLine.Milliseconds()}
	id1 := first.send(wait)
	waitQueued(t, k, 1)
	id2 := second.send(wait)
	waitQueued(t, k, 2)

	if r := holder.release(k, h.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	a := first.answer(id1)
	if a.Type != protocol.TypeOK {
		t.Fatalf("the first waiter: %+v, want ok", a)
	}
	if second.answered(id2) {
		t.Fatalf("the second waiter was answered while the first holds the lock: %+v", second.answer(id2))
	}
	if n := node.C.ZCard(context.Background(), k+":queue").Val(); n != 1 {
		t.Fatalf("%d waiters queued while the first holds the lock, want 1 (the second)", n)
	}
	if r := first.release(k, a.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	if b := second.answer(id2); b.Type != protocol.TypeOK {
		t.Fatalf("the second waiter: %+v, want ok", b)
	}
}

// The seed's flaw: a waiter killed while queued stays in the queue and
// blocks the next waiter past its timeout, although the lock is free.
func TestSeedFairDeadWaiterBlocksQueue(t *testing.T) {
	holder := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	doomed := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	next := startClient(t, "py-seed-fair", []string{node.Addr}, fairTTL)
	ctx := context.Background()
	k := key(t)
	h := holder.acquire(k, fairTTL, 0)
	if h.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", h)
	}
	doomed.send(protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: fairTTL, TimeoutMillis: 2 * waitLine.Milliseconds()})
	waitQueued(t, k, 1)
	doomed.kill()
	if r := holder.release(k, h.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}

	if a := next.acquire(k, fairTTL, 500); a.Type != protocol.TypeFail {
		t.Fatalf("acquire behind a dead waiter: %+v, want fail (the seed's queue never drops it)", a)
	}
	if n := node.C.Exists(ctx, k).Val(); n != 0 {
		t.Fatal("the lock is held: the test meant it to be free")
	}
	if n := node.C.ZCard(ctx, k+":queue").Val(); n != 1 {
		t.Fatalf("%d waiters queued after the live one gave up, want 1 (the dead one)", n)
	}
}
