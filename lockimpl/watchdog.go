package lockimpl

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Watchdog renews leases by itself: Start runs a goroutine per lease that
// renews it every RenewEvery (default TTL/3). Each renewal has its own
// deadline, shorter than the lease's remaining validity, so a hung link
// cannot keep the holder believing it still holds the lock. The first
// renewal that fails (token gone, timeout, connection error) or a
// validity deadline reached without a successful renewal closes the
// lease's Done channel at once (Err wraps ErrLost). Stop ends a lease's
// goroutine and waits for it, so no renewal runs after Stop returns. The
// renewable lock and the adapters of locks written by others that offer
// a watchdog use it.
type Watchdog struct {
	opt   Options
	lock  string // names the lock in errors
	renew func(ctx context.Context, l *Lease) error
	dogs  sync.Map // *Lease -> *watchdog
}

// NewWatchdog returns a watchdog that renews a lease with renew (which
// moves the lease's validity on success), under the RenewEvery,
// NodeTimeout and RenewHook of opt (filled by WithDefaults); lock names
// the lock in errors.
func NewWatchdog(opt Options, lock string, renew func(ctx context.Context, l *Lease) error) *Watchdog {
	return &Watchdog{opt: opt, lock: lock, renew: renew}
}

// watchdog renews one lease until stopped or the lease is lost.
type watchdog struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Start renews l until Stop or its loss. ctx's values reach the renewals;
// its end does not stop them.
func (w *Watchdog) Start(ctx context.Context, l *Lease) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d := &watchdog{cancel: cancel, done: make(chan struct{})}
	w.dogs.Store(l, d)
	go w.watch(wctx, l, d)
}

// watch is the watchdog loop of one lease.
func (w *Watchdog) watch(ctx context.Context, l *Lease, d *watchdog) {
	defer close(d.done)
	defer w.dogs.CompareAndDelete(l, d)
	t := time.NewTimer(w.opt.RenewEvery)
	defer t.Stop()
	for {
		// Wake for the next renewal, or at the validity deadline if that
		// comes first (a renewal that could not even start in time).
		wait := min(w.opt.RenewEvery, time.Until(l.Validity()))
		t.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-l.Done():
			return
		case <-t.C:
		}
		remaining := time.Until(l.Validity())
		if remaining <= 0 {
			l.MarkLost(fmt.Errorf("%w: %s %q: validity elapsed before a renewal", ErrLost, w.lock, l.Key))
			return
		}
		if err := w.renewOnce(ctx, l, remaining); err != nil {
			if ctx.Err() != nil {
				return // stopped by Release; the lease is being released
			}
			l.MarkLost(fmt.Errorf("%w: %w", ErrLost, err))
			return
		}
	}
}

// renewOnce renews the lease once with a deadline inside its remaining
// validity, telling Options.RenewHook about it.
func (w *Watchdog) renewOnce(ctx context.Context, l *Lease, remaining time.Duration) (err error) {
	if w.opt.RenewHook != nil {
		done := w.opt.RenewHook(l)
		defer func() { done(err) }()
	}
	ctx, cancel := context.WithTimeout(ctx, min(remaining*9/10, max(w.opt.NodeTimeout, w.opt.RenewEvery)))
	defer cancel()
	return w.renew(ctx, l)
}

// Stop ends the lease's renewals and waits until its goroutine has
// exited.
func (w *Watchdog) Stop(l *Lease) {
	if v, ok := w.dogs.LoadAndDelete(l); ok {
		d := v.(*watchdog)
		d.cancel()
		<-d.done
	}
}
