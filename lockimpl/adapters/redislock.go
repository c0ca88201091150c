package adapters

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Redislock adapts github.com/bsm/redislock (a single-instance lock) to
// Locker and Extender, and is the pattern for a lock of your own: keep the
// library's lock per lockimpl.Lease, map its errors to lockimpl's sentinels
// (ErrNotObtained only when certainly not taken, ErrNotHeld when the lock
// was gone, anything else unknown), and date the validity from before the
// attempt was sent. The retry loop is ours (lockimpl.AcquireLoop, one
// Obtain per attempt): redislock's own returns ctx.Err() both between
// attempts (certain) and during a command (unknown). The token is ours, so
// an unknown attempt can be cleaned up by it. An extend granted after the
// validity it would give is unknown. The in-process "redislock" lock and
// the zoo's redislock entries (with NewRedislockRenewed) are this type.
type Redislock struct {
	c     redis.UniversalClient
	rl    *redislock.Client
	opt   lockimpl.Options
	dog   *lockimpl.Watchdog // nil: no renewals by itself
	locks sync.Map           // *lockimpl.Lease -> *redislock.Lock
}

// NewRedislock wraps bsm/redislock on one node.
func NewRedislock(c redis.UniversalClient, opt lockimpl.Options) *Redislock {
	return &Redislock{c: c, rl: redislock.New(c), opt: opt.WithDefaults(1)}
}

// NewRedislockRenewed is NewRedislock with a watchdog (lockimpl.Watchdog)
// that calls Refresh every opt.RenewEvery, the usage redislock's README
// shows to keep a lock ("external watchdog"): the first failed refresh
// marks the lease lost.
func NewRedislockRenewed(c redis.UniversalClient, opt lockimpl.Options) *Redislock {
	a := NewRedislock(c, opt)
	a.dog = lockimpl.NewWatchdog(a.opt, nameRedislock, a.refresh)
	return a
}

// Acquire obtains the lock, retrying with jittered backoff until ctx ends,
// and starts the lease's watchdog if there is one.
func (a *Redislock) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	var got *redislock.Lock
	l, err := lockimpl.AcquireLoop(ctx, &a.opt, nameRedislock, a.opt.NodeNames[0], key,
		func(ctx context.Context, token string) (bool, int64, error) {
			lk, err := a.rl.Obtain(ctx, key, a.opt.TTL, &redislock.Options{Token: token})
			switch {
			case errors.Is(err, redislock.ErrNotObtained):
				return false, 0, nil
			case err != nil:
				return false, 0, err
			}
			got = lk
			return true, 0, nil
		},
		lockimpl.ReleaseCleanup(a.c, key))
	if err != nil {
		return nil, err
	}
	a.locks.Store(l, got)
	if a.dog != nil {
		a.dog.Start(ctx, l)
	}
	return l, nil
}

// Release stops the lease's watchdog (waiting for it), then releases
// through redislock.
func (a *Redislock) Release(ctx context.Context, l *lockimpl.Lease) error {
	if a.dog != nil {
		a.dog.Stop(l)
	}
	v, ok := a.locks.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedislock, "release (unknown lease)", l.Key)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opt.NodeTimeout)
	defer cancel()
	err := v.(*redislock.Lock).Release(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case errors.Is(err, redislock.ErrLockNotHeld):
		return lockimpl.NotHeldError(nameRedislock, "release", l.Key)
	case err != nil:
		return lockimpl.UnknownError(nameRedislock, "release", l.Key, err)
	}
	return nil
}

// Extend refreshes the TTL through redislock, under NodeTimeout.
func (a *Redislock) Extend(ctx context.Context, l *lockimpl.Lease) error {
	ctx, cancel := context.WithTimeout(ctx, a.opt.NodeTimeout)
	defer cancel()
	return a.refresh(ctx, l)
}

// refresh is one Refresh (no retry) that moves the validity to TTL −
// drift from before the call.
func (a *Redislock) refresh(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.Load(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedislock, "extend (unknown lease)", l.Key)
	}
	start := time.Now()
	err := v.(*redislock.Lock).Refresh(ctx, a.opt.TTL, nil)
	switch {
	case errors.Is(err, redislock.ErrNotObtained):
		return lockimpl.NotHeldError(nameRedislock, "extend", l.Key)
	case err != nil:
		return lockimpl.UnknownError(nameRedislock, "extend", l.Key, err)
	}
	valid := a.opt.ValidUntil(start)
	if !time.Now().Before(valid) {
		return lockimpl.UnknownError(nameRedislock, "extend", l.Key, errors.New("refreshed after the validity it would give"))
	}
	l.SetValidity(valid)
	return nil
}
