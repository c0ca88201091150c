package workloads

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// scriptedLock answers Acquire with the next error of a script (a test
// double for pure bookkeeping logic; real locks are tested in lockimpl).
type scriptedLock struct{ errs []error }

func (s *scriptedLock) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	err := s.errs[0]
	s.errs = s.errs[1:]
	if err != nil {
		return nil, err
	}
	return lockimpl.NewLease(key, "tok", 3, time.Second, time.Now().Add(time.Second)), nil
}

func (s *scriptedLock) Release(ctx context.Context, l *lockimpl.Lease) error { return nil }

func newTestWorker(errs ...error) *Worker {
	w := NewWorker("c1", 0)
	w.Rec, w.Procs, w.Lock = history.NewRecorder(nil), NewProcesses(1), &scriptedLock{errs: errs}
	w.Opt, w.TTL = Options{}.WithDefaults(time.Second), time.Second
	return w
}

// ok, certain failure and unknown outcomes are recorded as ok, fail and
// info; an info retires the process (Jepsen's rule) and nothing else does.
func TestOutcomesAndProcesses(t *testing.T) {
	w := newTestWorker(nil, fmt.Errorf("busy: %w", lockimpl.ErrNotObtained), errors.New("i/o timeout"), nil)
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		w.Acquire(ctx)
	}
	h := w.Rec.History()
	want := []struct {
		typ  history.Type
		proc int
	}{{history.Invoke, 0}, {history.OK, 0}, {history.Invoke, 0}, {history.Fail, 0}, {history.Invoke, 0}, {history.Info, 0}, {history.Invoke, 1}, {history.OK, 1}}
	if len(h) != len(want) {
		t.Fatalf("%d records, want %d", len(h), len(want))
	}
	for i, wt := range want {
		if h[i].Type != wt.typ || h[i].Process != wt.proc {
			t.Fatalf("record %d: %s by %d, want %s by %d", i, h[i].Type, h[i].Process, wt.typ, wt.proc)
		}
	}
	if h[1].Token != "tok" || h[1].Fence != 3 || h[1].Validity == 0 {
		t.Fatalf("acquire ok lacks the lease: %+v", h[1])
	}
}

// A halted (crashed) process invokes nothing more.
func TestHaltedProcessInvokesNothing(t *testing.T) {
	w := newTestWorker(nil)
	w.Halt()
	if _, err := w.Acquire(context.Background()); err == nil {
		t.Fatal("halted worker acquired")
	}
	if w.Rec.Len() != 0 || w.Continue(context.Background()) {
		t.Fatal("halted worker recorded an op or wants to continue")
	}
	if p := w.Crash(); p != 1 || !w.Continue(context.Background()) {
		t.Fatalf("after Crash: process %d, continue %v", p, w.Continue(context.Background()))
	}
}

// Holders stop at their validity deadline unless they trust the lost
// signal alone.
func TestHoldsHonoursValidityUnlessTold(t *testing.T) {
	w := newTestWorker()
	expired := lockimpl.NewLease("k", "t", 0, time.Second, time.Now().Add(-time.Millisecond))
	if w.Holds(expired) {
		t.Fatal("correct holder acts past its validity")
	}
	w.Opt.TrustLostSignal = true
	if !w.Holds(expired) {
		t.Fatal("TrustLostSignal holder should act until the lost signal")
	}
	expired.MarkLost(lockimpl.ErrLost)
	if w.Holds(expired) {
		t.Fatal("holder acts after the lost signal")
	}
}

// leaseLock grants leases valid until now + valid (negative: already
// expired), a test double for the write-ordering test.
type leaseLock struct{ valid time.Duration }

func (s leaseLock) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	return lockimpl.NewLease(key, "tok", 7, time.Second, time.Now().Add(s.valid)), nil
}

func (leaseLock) Release(ctx context.Context, l *lockimpl.Lease) error { return nil }

// The exclusion checker assumes a write's invoke is recorded before the
// writer's last validity check: the check runs at or after the invoke's
// time, and a write whose lease has run out is completed with fail and
// never sent (the worker has no resource: sending would panic).
func TestWriteChecksValidityAfterItsInvoke(t *testing.T) {
	w := newTestWorker()
	w.Lock = leaseLock{valid: -time.Millisecond}
	lease, err := w.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var checkedAt int64 = -1
	w.beforeSend = func(l *lockimpl.Lease) {
		if l != lease {
			t.Errorf("checked lease %p, want the writer's %p", l, lease)
		}
		checkedAt = w.Rec.Now()
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("a write with an expired lease was sent: %v", p)
			}
		}()
		if err := w.Write(context.Background(), history.FWrite, "c", 1, lease.Fence); !errors.Is(err, ErrLeaseGone) {
			t.Fatalf("write with an expired lease: %v", err)
		}
	}()
	h := w.Rec.History()
	inv, done := h[len(h)-2], h[len(h)-1]
	if inv.F != history.FWrite || inv.Type != history.Invoke || done.Type != history.Fail {
		t.Fatalf("write records %+v %+v", inv, done)
	}
	if checkedAt < 0 || inv.Time > checkedAt {
		t.Fatalf("validity checked at %d, before the write's invoke at %d", checkedAt, inv.Time)
	}
	// after the release the lease is no longer the writer's
	if err := w.Release(context.Background(), lease); err != nil {
		t.Fatal(err)
	}
	if w.leaseFor(lease.Fence) != nil {
		t.Fatal("released lease still held")
	}
}
