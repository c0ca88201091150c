package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Renewable is the single-instance lock with a watchdog (Watchdog): after
// Acquire a goroutine extends the lease every RenewEvery (default TTL/3),
// each extend bounded inside the remaining validity, and the first that
// fails, or a validity reached without one, closes the lease's Done
// channel (Err wraps ErrLost). Release stops the watchdog and waits for it
// to exit before releasing, so no renewal runs after Release returns.
// Extend (Single's) extends the lease once by hand; the watchdog does it
// anyway.
type Renewable struct {
	extendable
	dog *Watchdog
}

// NewRenewable returns a watchdog-renewed lock on one node.
func NewRenewable(c redis.UniversalClient, opt Options) *Renewable {
	r := &Renewable{extendable: extendable{newNode(c, opt, nameRenewable)}}
	r.dog = NewWatchdog(r.opt, nameRenewable, func(ctx context.Context, l *Lease) error {
		// The watchdog's deadline is the shorter one.
		return r.extendWithin(ctx, l, "renew", max(r.opt.NodeTimeout, r.opt.RenewEvery))
	})
	return r
}

// Acquire takes the lock (as Single does) and starts its watchdog.
func (r *Renewable) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := r.acquireSetNX(ctx, key, r.opt.TTL)
	if err != nil {
		return nil, err
	}
	r.dog.Start(ctx, l)
	return l, nil
}

// Release stops the watchdog, then deletes the key if it still holds the
// lease's token.
func (r *Renewable) Release(ctx context.Context, l *Lease) error {
	r.dog.Stop(l)
	return r.node.Release(ctx, l)
}
