// Command client is the lockstorm zoo's client for github.com/bsm/redislock
// v0.10.0 (a single-instance lock): the line protocol of
// docs/client-protocol.md on stdin and stdout, on the first
// LOCKSTORM_NODES proxy.
//
// The mapping (README.md): acquire is one Obtain with a retry strategy
// that stops before the request's timeout (the library then answers
// ErrNotObtained), release is Lock.Release, extend is Lock.Refresh, and a
// watchdog goroutine per lease calls Refresh every LOCKSTORM_RENEW_MS:
// redislock has no watchdog of its own, Refresh is what its README
// offers to keep a lock (v0.10.0's README shows this very loop as its
// "external watchdog" example: Refresh every ttl/3, ErrNotObtained means
// the lock was lost). The token is Lock.Token(), the library's random
// value stored under the key.
//
// The adapter is redislock v0.9.4's (zoo/redislock-v0.9.4): v0.10.0 keeps
// Obtain, Refresh, Release, Token and the retry strategies; Refresh gained
// an optional retry strategy (nil: no retry, as before and as the README's
// watchdog passes), and a wait cut short by the context now answers
// errors.Join(ErrNotObtained, ctx.Err()) instead of ctx.Err().
package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// name is the library and the release this client was built with: the
// redislock-v0.9.4 entry links this same file, its go.mod pins v0.9.4.
var name = "redislock " + protocol.ModuleVersion("github.com/bsm/redislock")

// The retry strategy's bounds: ExponentialBackoff with the minimum the
// library's documentation recommends (16 ms) and a cap of 64 ms.
const (
	backoffMin = 16 * time.Millisecond
	backoffMax = 64 * time.Millisecond
)

func main() {
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		// One go-redis client on the one node, configured as lockstorm's
		// own locks are: context deadlines honoured, no silent retries.
		c := redis.NewClient(lockimpl.ClientOptions(env.Nodes[0]))
		return &adapter{rl: redislock.New(c), opt: opt}, func() { c.Close() }, nil
	})
}

// adapter is redislock behind lockimpl.Locker and lockimpl.Extender, with
// a watchdog per lease.
type adapter struct {
	rl    *redislock.Client
	opt   lockimpl.Options
	mu    sync.Mutex // orders validity updates (watchdog and extend requests)
	locks sync.Map   // *lockimpl.Lease -> *held
}

// held is a lease's redislock.Lock and its watchdog.
type held struct {
	lock   *redislock.Lock
	cancel context.CancelFunc // stops the watchdog
	done   chan struct{}      // closed when the watchdog has exited
}

// boundedRetry is the acquire's retry strategy: exponential backoff
// (redislock.ExponentialBackoff) that answers 0 — stop, Obtain returns
// ErrNotObtained — when the next try would not fit before the deadline.
// It records when it last let a retry happen: the try that follows is
// sent after that instant, so a grant's validity counted from it is
// conservative.
type boundedRetry struct {
	s        redislock.RetryStrategy
	deadline time.Time // zero: none
	try      time.Duration
	last     time.Time
}

func (r *boundedRetry) NextBackoff() time.Duration {
	d := r.s.NextBackoff()
	now := time.Now()
	if !r.deadline.IsZero() && now.Add(d+r.try).After(r.deadline) {
		return 0
	}
	r.last = now
	return d
}

// Acquire obtains the lock, retrying until the request's deadline is
// near, and starts the lease's watchdog.
func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	r := &boundedRetry{s: redislock.ExponentialBackoff(backoffMin, backoffMax), try: a.opt.NodeTimeout, last: time.Now()}
	if dl, ok := ctx.Deadline(); ok {
		r.deadline = dl
	}
	lk, err := a.rl.Obtain(ctx, key, a.opt.TTL, &redislock.Options{RetryStrategy: r})
	switch {
	case errors.Is(err, redislock.ErrNotObtained):
		return nil, lockimpl.NotObtainedError(name, key, err)
	case err != nil:
		// A command error (a command cut short by the context's end
		// included). v0.10.0 answers a wait cut short by the context with
		// errors.Join(ErrNotObtained, ctx.Err()): the case above, a
		// certain failure, since Obtain's every command error is final.
		// v0.9.4 returns ctx.Err() for a wait and a command cut short
		// alike: unknown, here.
		return nil, lockimpl.UnknownError(name, "acquire", key, err)
	}
	l := lockimpl.NewLease(key, lk.Token(), 0, a.opt.TTL, a.opt.ValidUntil(r.last))
	l.Nodes = a.opt.NodeNames[:1]
	wctx, cancel := context.WithCancel(context.Background())
	h := &held{lock: lk, cancel: cancel, done: make(chan struct{})}
	a.locks.Store(l, h)
	go a.watch(wctx, l, h)
	return l, nil
}

// watch is the watchdog of one lease: it refreshes every RenewEvery, each
// refresh bounded inside the remaining validity. The first refresh that
// fails (not held, a timeout, an error), or a validity reached before a
// refresh could be made, marks the lease lost.
func (a *adapter) watch(ctx context.Context, l *lockimpl.Lease, h *held) {
	defer close(h.done)
	t := time.NewTimer(a.opt.RenewEvery)
	defer t.Stop()
	for {
		t.Reset(max(min(a.opt.RenewEvery, time.Until(l.Validity())), 0))
		select {
		case <-ctx.Done():
			return
		case <-l.Done():
			return
		case <-t.C:
		}
		remaining := time.Until(l.Validity())
		if remaining <= 0 {
			l.MarkLost(fmt.Errorf("%w: %s %q: validity elapsed before a refresh", lockimpl.ErrLost, name, l.Key))
			return
		}
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, min(remaining*9/10, max(a.opt.NodeTimeout, a.opt.RenewEvery)))
		err := h.lock.Refresh(rctx, a.opt.TTL, nil)
		cancel()
		if ctx.Err() != nil {
			return // stopped by Release
		}
		switch {
		case err == nil:
			a.advance(l, a.opt.ValidUntil(start))
		case errors.Is(err, redislock.ErrNotObtained):
			l.MarkLost(fmt.Errorf("%w: %s %q: refresh: lock not held", lockimpl.ErrLost, name, l.Key))
			return
		default:
			l.MarkLost(fmt.Errorf("%w: %s %q: refresh: %v", lockimpl.ErrLost, name, l.Key, err))
			return
		}
	}
}

// advance moves l's validity to v when that is later.
func (a *adapter) advance(l *lockimpl.Lease, v time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v.After(l.Validity()) {
		l.SetValidity(v)
	}
}

// Release stops the watchdog, waits for it, then releases.
func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	h := v.(*held)
	h.cancel()
	<-h.done
	l.MarkLost(lockimpl.ErrReleased)
	err := h.lock.Release(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redislock.ErrLockNotHeld):
		return lockimpl.NotHeldError(name, "release", l.Key)
	}
	return lockimpl.UnknownError(name, "release", l.Key, err)
}

// Extend refreshes the lock once, on request.
func (a *adapter) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.Load(l)
	if !ok {
		return lockimpl.NotHeldError(name, "extend (unknown lease)", l.Key)
	}
	start := time.Now()
	err := v.(*held).lock.Refresh(ctx, a.opt.TTL, nil)
	switch {
	case err == nil:
		a.advance(l, a.opt.ValidUntil(start))
		return nil
	case errors.Is(err, redislock.ErrNotObtained):
		return lockimpl.NotHeldError(name, "extend", l.Key)
	}
	return lockimpl.UnknownError(name, "extend", l.Key, err)
}
