package workloads

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/ctxtime"
	"github.com/lockstorm/lockstorm/internal/pauseclock"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/resource"
)

// Processes hands out process ids: slot i starts as process i, and each
// replacement (after an info or a crash) takes the next id past every slot,
// as Jepsen does.
type Processes struct {
	mu   sync.Mutex
	next int
}

// NewProcesses reserves ids 0..slots-1 for the slots' first processes.
func NewProcesses(slots int) *Processes { return &Processes{next: slots} }

// Fresh returns an id never used before.
func (p *Processes) Fresh() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	return p.next - 1
}

// Worker is one client slot: its lock (built on its own proxied links), its
// resource connection, its random source and its current process id.
type Worker struct {
	Slot     string // client name, as in the cluster's links
	Lock     lockimpl.Locker
	Resource *resource.Client
	Rec      *history.Recorder
	Rand     *rand.Rand
	Procs    *Processes
	Opt      Options
	TTL      time.Duration
	// Stop, when closed, asks the worker to start no new round; rounds in
	// progress finish (and release). Nil means never.
	Stop <-chan struct{}
	// Clock, when set, times the worker's own timeouts (AcquireTimeout,
	// OpTimeout) on the running time of the slot's client process: while
	// the process is stopped (a real pause) none of them fires, and its
	// requests in flight wait for the thaw, as in a stopped process. Nil
	// is the wall clock.
	Clock *pauseclock.Clock

	mu      sync.Mutex
	process int
	halted  bool
	dogs    map[*lockimpl.Lease]int // watchdog process per lease
	// held are the current process's leases (acquired ok, not yet
	// released), newest last: Write checks the writer's lease after
	// recording the write's invoke.
	held []*lockimpl.Lease
	// OnRelease, when set, runs as each release of the current process
	// begins: after its invoke is recorded, before the lock's release is
	// sent. It must not block (the harness times faults aimed at a
	// release that began with it: nemesis.TargetReleaser).
	OnRelease func()
	// OnRenewal, when set, runs after each extension of one of the
	// current process's leases returned ok and was recorded: a
	// watchdog's renewal (RenewHook), a renewal the lock made by itself
	// (Lease.SetValidity), or an explicit Extend. It must not block (the
	// harness times faults aimed at a renewal with it:
	// nemesis.TargetRenewal).
	OnRenewal func()
	// beforeSend, when set (tests), runs at Write's validity check.
	beforeSend func(l *lockimpl.Lease)
	watches    map[*lockimpl.Lease]*leaseWatch
}

// errHalted is returned by operations of a halted (crashed) process.
var errHalted = errors.New("workloads: process crashed")

// Halt stops the current process from invoking anything more: the first
// step of a crash, before its connections close.
func (w *Worker) Halt() {
	w.mu.Lock()
	w.halted = true
	w.mu.Unlock()
}

func (w *Worker) isHalted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.halted
}

// NewWorker returns a worker whose first process is process.
func NewWorker(slot string, process int) *Worker { return &Worker{Slot: slot, process: process} }

// Process is the worker's current process id.
func (w *Worker) Process() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.process
}

// Crash abandons the current process (it never invokes again) and gives the
// slot a fresh one. The caller must make sure the old process's goroutine
// has stopped.
func (w *Worker) Crash() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.halted = false
	w.held = nil
	w.process = w.Procs.Fresh()
	return w.process
}

// outcome classifies an error: nil is ok; errors that certainly had no
// effect are fail; everything else is info (unknown).
func outcome(err error, certainFail ...error) history.Type {
	if err == nil {
		return history.OK
	}
	for _, c := range certainFail {
		if errors.Is(err, c) {
			return history.Fail
		}
	}
	return history.Info
}

// do records op's invoke, runs fn, and records its completion. fn fills
// result fields into the op it is given. An info completion retires the
// process. The completed op is returned.
//
// A worker whose context has ended invokes nothing: a crashed process never
// acts again, and a stopped run starts nothing new.
func (w *Worker) do(ctx context.Context, op history.Op, fn func(ctx context.Context, op *history.Op) error, certainFail ...error) (history.Op, error) {
	if err := ctx.Err(); err != nil {
		return op, err
	}
	if w.isHalted() {
		return op, errHalted
	}
	op.Process, op.Client = w.Process(), w.Slot
	op.Type = history.Invoke
	w.Rec.Record(op)
	err := fn(ctx, &op)
	op.Type = outcome(err, certainFail...)
	if err != nil {
		op.Error = err.Error()
	}
	done := w.Rec.Record(op)
	if op.Type == history.Info && !w.isHalted() {
		w.Crash()
	}
	return done, err
}

// Acquire records an acquire of the workload's key and returns the lease
// (nil unless ok).
func (w *Worker) Acquire(ctx context.Context) (*lockimpl.Lease, error) {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.AcquireTimeout)
	defer cancel()
	return w.AcquireKey(ctx, w.Opt.Key)
}

// AcquireKey records an acquire of key, bounded by ctx only. Only
// ErrNotObtained is a certain failure; any other error is unknown (info).
func (w *Worker) AcquireKey(ctx context.Context, key string) (*lockimpl.Lease, error) {
	var lease *lockimpl.Lease
	_, err := w.do(ctx, history.Op{F: history.FAcquire, Key: key, TTL: int64(w.TTL)}, func(ctx context.Context, op *history.Op) error {
		l, err := w.Lock.Acquire(ctx, key)
		if err != nil {
			return err
		}
		lease = l
		w.mu.Lock()
		w.held = append(w.held, l)
		w.mu.Unlock()
		w.watch(l) // renewals by SetValidity are recorded from now on
		op.Token, op.Fence, op.Nodes = l.Token, l.Fence, l.Nodes
		op.Validity = w.Rec.At(l.Validity())
		return nil
	}, lockimpl.ErrNotObtained)
	return lease, err
}

// Release records a release of l.
func (w *Worker) Release(ctx context.Context, l *lockimpl.Lease) error {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout)
	defer cancel()
	w.unwatch(l)
	defer func() {
		w.mu.Lock()
		delete(w.dogs, l)
		for i, h := range w.held {
			if h == l {
				w.held = append(w.held[:i:i], w.held[i+1:]...)
				break
			}
		}
		w.mu.Unlock()
	}()
	_, err := w.do(ctx, history.Op{F: history.FRelease, Key: l.Key, Token: l.Token, Fence: l.Fence}, func(ctx context.Context, op *history.Op) error {
		if w.OnRelease != nil {
			w.OnRelease()
		}
		return w.Lock.Release(ctx, l)
	}, lockimpl.ErrNotHeld)
	return err
}

// RenewHook records each watchdog renewal of a lease as an extend op pair
// under a process of its own (the watchdog runs beside the holder, and a
// Jepsen process is single-threaded). Install it as lockimpl.Options.RenewHook.
func (w *Worker) RenewHook(l *lockimpl.Lease) func(error) {
	if w.isHalted() {
		return func(error) {}
	}
	w.explicit(l, +1)
	p := w.dogProcess(l)
	op := history.Op{Type: history.Invoke, Process: p, Client: w.Slot, F: history.FExtend, Key: l.Key, Token: l.Token, Fence: l.Fence, TTL: int64(w.TTL), Detail: "watchdog"}
	w.Rec.Record(op)
	return func(err error) {
		op.Type = outcome(err, lockimpl.ErrNotHeld)
		if err != nil {
			op.Error = err.Error()
		} else {
			op.Validity = w.Rec.At(l.Validity())
		}
		w.Rec.Record(op)
		w.explicit(l, -1)
		if err == nil {
			w.renewed()
		}
		if err != nil {
			w.mu.Lock()
			delete(w.dogs, l) // the watchdog stops after a failed renewal
			w.mu.Unlock()
		}
	}
}

// renewed runs the OnRenewal hook.
func (w *Worker) renewed() {
	if w.OnRenewal != nil {
		w.OnRenewal()
	}
}

// Read records a resource read of key carrying fence (0 = unfenced). A
// fencing resource rejects a read whose token is below one it accepted:
// a fail with Error "stale" (the read certainly had no effect).
func (w *Worker) Read(ctx context.Context, key string, fence int64) (int64, error) {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout)
	defer cancel()
	var v int64
	_, err := w.do(ctx, history.Op{F: history.FRead, Key: key, Fence: fence}, func(ctx context.Context, op *history.Op) error {
		var err error
		v, err = w.Resource.ReadFenced(ctx, key, fence)
		op.Value = v
		return staleAsFail(err)
	}, errStale)
	return v, err
}

// Write records a resource write. A rejection for a stale token is a fail
// with Error "stale".
//
// The order is the one the exclusion checker assumes: the write's invoke
// is recorded first, then the writer's lease (its newest held lease with
// this fencing token) is checked (Holds), and only then is the write
// sent. A lease found no longer valid completes the write with fail
// (ErrLeaseGone) without sending it, so every write recorded as sent was
// checked at or after its invoke time. A write with no held lease is sent
// unchecked (the checker then reports it as made without a lease).
func (w *Worker) Write(ctx context.Context, f, key string, value, fence int64) error {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout)
	defer cancel()
	_, err := w.do(ctx, history.Op{F: f, Key: key, Value: value, Fence: fence}, func(ctx context.Context, op *history.Op) error {
		if l := w.leaseFor(fence); l != nil {
			if w.beforeSend != nil {
				w.beforeSend(l)
			}
			if !w.Holds(l) {
				return ErrLeaseGone
			}
		}
		return staleAsFail(w.Resource.Write(ctx, key, value, fence))
	}, errStale, ErrLeaseGone)
	return err
}

// ErrLeaseGone completes (with fail) a write that was not sent because
// the writer's lease was no longer valid when it was about to send it.
var ErrLeaseGone = errors.New("workloads: lease no longer valid; write not sent")

// leaseFor is the current process's newest held lease with fencing token
// fence (any, newest, when fence is 0 and none matches); nil if none.
func (w *Worker) leaseFor(fence int64) *lockimpl.Lease {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.held) - 1; i >= 0; i-- {
		if w.held[i].Fence == fence {
			return w.held[i]
		}
	}
	if fence == 0 && len(w.held) > 0 {
		return w.held[len(w.held)-1]
	}
	return nil
}

// errStale is recorded as the Error of a write the resource rejected.
var errStale = errors.New("stale")

// Lost records that the holder learned its lease is lost (an op pair with
// F "lost", Error the reason), so the report can show it.
func (w *Worker) Lost(l *lockimpl.Lease) {
	reason := "validity deadline passed"
	if err := l.Err(); err != nil {
		reason = err.Error()
	}
	op := history.Op{F: history.FLost, Key: l.Key, Token: l.Token, Fence: l.Fence, Process: w.Process(), Client: w.Slot, Type: history.Invoke, Detail: reason}
	w.Rec.Record(op)
	op.Type = history.OK
	w.Rec.Record(op)
}

// Continue reports whether the worker should start another round.
func (w *Worker) Continue(ctx context.Context) bool {
	if ctx.Err() != nil || w.isHalted() {
		return false
	}
	select {
	case <-w.Stop:
		return false
	default:
		return true
	}
}

// staleAsFail maps the resource's stale rejection to errStale.
func staleAsFail(err error) error {
	if errors.Is(err, resource.ErrStale) {
		return errStale
	}
	return err
}

// Holds reports whether the holder may still act on l: its lost-signal has
// not fired and (unless Opt.TrustLostSignal) its validity deadline is ahead.
func (w *Worker) Holds(l *lockimpl.Lease) bool {
	if w.Opt.TrustLostSignal {
		select {
		case <-l.Done():
			return false
		default:
			return true
		}
	}
	return l.Valid()
}

// Hold waits d while holding l, or until ctx ends or the lease is lost. It
// reports whether the full time passed with the lease still held (see
// Holds).
func (w *Worker) Hold(ctx context.Context, d time.Duration, l *lockimpl.Lease) bool {
	return Sleep(ctx, d, l.Done()) && w.Holds(l)
}

// Sleep waits d, or until ctx ends or lost closes (lost may be nil). It
// reports whether the full time passed.
func Sleep(ctx context.Context, d time.Duration, lost <-chan struct{}) bool {
	return ctxtime.Sleep(ctx, d, lost)
}

// Draw returns a duration uniform in [lo, hi].
func (w *Worker) Draw(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(w.Rand.Int64N(int64(hi-lo)+1))
}
