package lockimpl

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Renewable is the single-instance lock with a watchdog: after Acquire a
// goroutine extends the lease every RenewEvery (default TTL/3). Each
// renewal has its own deadline, shorter than the lease's remaining
// validity, so a hung link cannot keep the holder believing it still
// holds the lock. The first renewal that fails (token gone, timeout,
// connection error) or a validity deadline reached without a successful
// renewal closes the lease's Done channel at once (Err wraps ErrLost).
// Release stops the watchdog and waits for it to exit before releasing,
// so no renewal runs after Release returns. Extend (Single's) extends the
// lease once by hand; the watchdog does it anyway.
type Renewable struct {
	extendable
	dogs sync.Map // *Lease -> *watchdog
}

// NewRenewable returns a watchdog-renewed lock on one node.
func NewRenewable(c redis.UniversalClient, opt Options) *Renewable {
	return &Renewable{extendable: extendable{newNode(c, opt, nameRenewable)}}
}

// watchdog renews one lease until stopped or the lease is lost.
type watchdog struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Acquire takes the lock (as Single does) and starts its watchdog.
func (r *Renewable) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := r.acquireSetNX(ctx, key, r.opt.TTL)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &watchdog{cancel: cancel, done: make(chan struct{})}
	r.dogs.Store(l, w)
	go r.watch(wctx, l, w)
	return l, nil
}

// watch is the watchdog loop of one lease.
func (r *Renewable) watch(ctx context.Context, l *Lease, w *watchdog) {
	defer close(w.done)
	defer r.dogs.CompareAndDelete(l, w)
	t := time.NewTimer(r.opt.RenewEvery)
	defer t.Stop()
	for {
		// Wake for the next renewal, or at the validity deadline if that
		// comes first (a renewal that could not even start in time).
		wait := min(r.opt.RenewEvery, time.Until(l.Validity()))
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
			l.MarkLost(fmt.Errorf("%w: %s %q: validity elapsed before a renewal", ErrLost, nameRenewable, l.Key))
			return
		}
		if err := r.renew(ctx, l, remaining); err != nil {
			if ctx.Err() != nil {
				return // stopped by Release; the lease is being released
			}
			l.MarkLost(fmt.Errorf("%w: %w", ErrLost, err))
			return
		}
	}
}

// renew extends the lease once with a deadline inside its remaining
// validity, telling Options.RenewHook about it.
func (r *Renewable) renew(ctx context.Context, l *Lease, remaining time.Duration) (err error) {
	if r.opt.RenewHook != nil {
		done := r.opt.RenewHook(l)
		defer func() { done(err) }()
	}
	return r.extendWithin(ctx, l, "renew", min(remaining*9/10, max(r.opt.NodeTimeout, r.opt.RenewEvery)))
}

// stop ends the lease's watchdog and waits until it has exited.
func (r *Renewable) stop(l *Lease) {
	if v, ok := r.dogs.LoadAndDelete(l); ok {
		w := v.(*watchdog)
		w.cancel()
		<-w.done
	}
}

// Release stops the watchdog, then deletes the key if it still holds the
// lease's token.
func (r *Renewable) Release(ctx context.Context, l *Lease) error {
	r.stop(l)
	return r.node.Release(ctx, l)
}
