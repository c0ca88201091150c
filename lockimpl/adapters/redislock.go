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

// Redislock adapts github.com/bsm/redislock (a single-instance lock
// written by others) to Locker and Extender. It is also the pattern for
// plugging in a lock of your own: keep the library's lock object per
// lockimpl.Lease (here in a sync.Map), translate its errors to lockimpl's
// sentinels (lockimpl.ErrNotObtained only when the lock certainly was not taken,
// lockimpl.ErrNotHeld when a release or extend found the lock gone, anything else
// is an unknown outcome), and compute the lease's validity from the
// moment before the attempt was sent.
//
// The retry loop is ours (one redislock Obtain per attempt, each with its
// own NodeTimeout), because redislock's own retry returns ctx.Err() both
// when the context ends between attempts (certain failure) and during a
// command (unknown outcome), which a history must tell apart. The token
// is chosen here so that an unknown attempt can be cleaned up by token.
type Redislock struct {
	c     redis.UniversalClient
	rl    *redislock.Client
	opt   lockimpl.Options
	locks sync.Map // *lockimpl.Lease -> *redislock.Lock
}

// NewRedislock wraps bsm/redislock on one node.
func NewRedislock(c redis.UniversalClient, opt lockimpl.Options) *Redislock {
	return &Redislock{c: c, rl: redislock.New(c), opt: opt.WithDefaults(1)}
}

// Acquire obtains the lock, retrying with jittered backoff until ctx ends.
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
	return l, nil
}

// Release releases through redislock.
func (a *Redislock) Release(ctx context.Context, l *lockimpl.Lease) error {
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

// Extend refreshes the TTL through redislock.
func (a *Redislock) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.Load(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedislock, "extend (unknown lease)", l.Key)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, a.opt.NodeTimeout)
	defer cancel()
	err := v.(*redislock.Lock).Refresh(ctx, a.opt.TTL, nil)
	switch {
	case errors.Is(err, redislock.ErrNotObtained):
		return lockimpl.NotHeldError(nameRedislock, "extend", l.Key)
	case err != nil:
		return lockimpl.UnknownError(nameRedislock, "extend", l.Key, err)
	}
	valid := a.opt.ValidUntil(start)
	if !time.Now().Before(valid) {
		return lockimpl.NotHeldError(nameRedislock, "extend (validity elapsed)", l.Key)
	}
	l.SetValidity(valid)
	return nil
}
