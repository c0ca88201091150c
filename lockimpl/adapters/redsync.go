package adapters

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// Redsync adapts github.com/go-redsync/redsync/v4 (a Redlock written by
// others, with its go-redis v9 pool) to Locker and Extender; see
// Redislock for the adapter pattern. Each attempt is one TryLockContext
// (redsync asks every node, waits for all of them, and releases on
// failure); the retry loop and its jittered backoff are ours.
//
// Error translation: redsync's ErrTaken (a quorum holds someone else's
// key) and ErrFailed without node errors are certain failures; node
// errors (RedisError: timeouts, resets) make the attempt's outcome
// unknown. The lease validity is redsync's own Until().
type Redsync struct {
	rs      *redsync.Redsync
	opt     lockimpl.Options
	n       int
	mutexes sync.Map // *lockimpl.Lease -> *redsync.Mutex
}

// NewRedsync wraps redsync over the given nodes (one client each).
func NewRedsync(nodes []redis.UniversalClient, opt lockimpl.Options) (*Redsync, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one node", lockimpl.ErrNoClients, nameRedsync)
	}
	pools := make([]redsyncredis.Pool, len(nodes))
	for i, c := range nodes {
		pools[i] = goredis.NewPool(c)
	}
	o := opt.WithDefaults(len(nodes))
	return &Redsync{rs: redsync.New(pools...), opt: o, n: len(nodes)}, nil
}

// Acquire locks the mutex named key, retrying until ctx ends.
func (a *Redsync) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	token := lockimpl.NewToken()
	m := a.rs.NewMutex(key,
		redsync.WithExpiry(a.opt.TTL),
		redsync.WithTries(1),
		redsync.WithDriftFactor(max(a.opt.DriftFactor, 0)),
		redsync.WithTimeoutFactor(float64(a.opt.NodeTimeout)/float64(a.opt.TTL)),
		redsync.WithGenValueFunc(func() (string, error) { return token, nil }),
	)
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, lockimpl.NotObtainedError(nameRedsync, key, err)
		}
		err := m.TryLockContext(ctx)
		if err == nil {
			l := lockimpl.NewLease(key, m.Value(), 0, a.opt.TTL, m.Until())
			a.mutexes.Store(l, m)
			return l, nil
		}
		if !a.certainFailure(err) {
			return nil, lockimpl.UnknownError(nameRedsync, "acquire", key, err)
		}
		if !ctxtime.Sleep(ctx, a.opt.Backoff(i), nil) {
			return nil, lockimpl.NotObtainedError(nameRedsync, key, ctx.Err())
		}
	}
}

// Release unlocks on every node through redsync.
func (a *Redsync) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedsync, "release (unknown lease)", l.Key)
	}
	ok, err := v.(*redsync.Mutex).UnlockContext(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case ok:
		return nil
	case hasRedisError(err):
		return lockimpl.UnknownError(nameRedsync, "release", l.Key, err)
	}
	// ErrTaken, ErrNodeTaken, ErrLockAlreadyExpired: every node answered
	// and too few held our token.
	return lockimpl.NotHeldError(nameRedsync, "release", l.Key)
}

// Extend extends on a quorum through redsync.
func (a *Redsync) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.Load(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedsync, "extend (unknown lease)", l.Key)
	}
	m := v.(*redsync.Mutex)
	ok, err := m.ExtendContext(ctx)
	switch {
	case ok:
		l.SetValidity(m.Until())
		return nil
	case hasRedisError(err):
		return lockimpl.UnknownError(nameRedsync, "extend", l.Key, err)
	}
	return lockimpl.NotHeldError(nameRedsync, "extend", l.Key)
}

// certainFailure reports whether a failed redsync attempt certainly left
// no quorum holding our token: a quorum answered "taken", or too few nodes
// had errors after sending to make a quorum.
func (a *Redsync) certainFailure(err error) bool {
	var taken *redsync.ErrTaken
	if errors.As(err, &taken) {
		return true
	}
	takenN, unknownN := 0, 0
	lockimpl.WalkErrors(err, func(e error) {
		switch e := e.(type) {
		case *redsync.ErrNodeTaken:
			takenN++
		case *redsync.RedisError:
			if !lockimpl.NotSent(e.Err) {
				unknownN++
			}
		}
	})
	quorum := a.n/2 + 1
	return unknownN == 0 || takenN > a.n-quorum
}

// hasRedisError reports whether a redsync error includes a node error.
func hasRedisError(err error) bool {
	var nodeErr *redsync.RedisError
	return errors.As(err, &nodeErr)
}
