// Package lockimpl holds the lock implementations lockstorm tests: correct
// ones (single, renewable, redlock, fair, fenced), deliberately broken ones
// (unsafe-*). Every lock offers the Locker interface; a user plugs a lock
// of their own in the same way, and package lockimpl/adapters does so for
// locks written by others (redsync, redislock), registering them by name.
package lockimpl

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Sentinel errors. Errors returned by locks wrap one of these when they apply.
var (
	// ErrNotObtained: the lock is held by someone else (or no quorum agreed)
	// and the context ended before it could be taken. Certain: nothing is held.
	ErrNotObtained = errors.New("lockimpl: lock not obtained")
	// ErrNotHeld: release or extend of a lease the caller no longer holds.
	ErrNotHeld = errors.New("lockimpl: lock not held")
	// ErrLost: the lease was lost (expired or taken) while held.
	ErrLost = errors.New("lockimpl: lease lost")
	// ErrUnsupported: the lock does not offer the operation.
	ErrUnsupported = errors.New("lockimpl: operation not supported")
)

// Locker is what every lock offers the workloads. Acquire blocks (retrying)
// until the lock is taken or ctx ends. An error that does not wrap
// ErrNotObtained or ErrNotHeld leaves the outcome unknown (the history
// records it as info).
type Locker interface {
	Acquire(ctx context.Context, key string) (*Lease, error)
	Release(ctx context.Context, l *Lease) error
}

// Extender is offered by locks whose lease can be extended by its holder.
// On success the lease's validity moves forward.
type Extender interface {
	Extend(ctx context.Context, l *Lease) error
}

// Lease is a held lock. Token is the random value stored under the key;
// Fence is a fencing token (0 = none); validity is a monotonic deadline.
type Lease struct {
	Key   string
	Token string
	Fence int64
	// TTL is the time-to-live asked of the server.
	TTL time.Duration
	// Nodes are the nodes that granted the lease.
	Nodes []string

	mu       sync.Mutex
	validity time.Time
	observer func(old, new time.Time)
	lostOnce sync.Once
	lost     chan struct{}
	lostErr  error
}

// NewLease returns a lease valid until the given monotonic instant.
func NewLease(key, token string, fence int64, ttl time.Duration, validUntil time.Time) *Lease {
	return &Lease{Key: key, Token: token, Fence: fence, TTL: ttl, validity: validUntil, lost: make(chan struct{})}
}

// Validity is the instant (monotonic) until which the holder may assume it
// holds the lock: the server's promise minus elapsed time and clock drift.
func (l *Lease) Validity() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.validity
}

// SetValidity moves the validity deadline: after an extend or a watchdog
// renewal, to no later than the renewal command's send time + TTL − drift
// (see Options.ValidUntil). It then tells the lease's observer, if any, so
// the harness records every renewal without the lock doing anything else.
func (l *Lease) SetValidity(t time.Time) {
	l.mu.Lock()
	old := l.validity
	l.validity = t
	obs := l.observer
	l.mu.Unlock()
	if obs != nil {
		obs(old, t)
	}
}

// ObserveValidity installs fn, called after each later SetValidity with
// the old and the new deadline, on the goroutine that called SetValidity
// and outside the lease's lock (fn may read the lease). A lease has one
// observer: a later call replaces it, nil removes it. The harness installs
// one on every lease a workload is handed; locks need not call it.
func (l *Lease) ObserveValidity(fn func(old, new time.Time)) {
	l.mu.Lock()
	l.observer = fn
	l.mu.Unlock()
}

// Valid reports whether the validity deadline is still ahead and the lease
// was not signalled lost.
func (l *Lease) Valid() bool {
	select {
	case <-l.lost:
		return false
	default:
	}
	return time.Now().Before(l.Validity())
}

// Done is closed when the holder is known to have lost the lock (a failed
// renewal, an expiry the watchdog saw). Locks without a watchdog close it
// only on Release.
func (l *Lease) Done() <-chan struct{} { return l.lost }

// Err is why Done closed (nil while open).
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

// MarkLost closes Done with the given reason. Only the first call counts.
func (l *Lease) MarkLost(err error) {
	l.lostOnce.Do(func() {
		l.mu.Lock()
		l.lostErr = err
		l.mu.Unlock()
		close(l.lost)
	})
}
