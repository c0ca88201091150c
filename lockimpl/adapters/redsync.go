package adapters

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// Redsync adapts github.com/go-redsync/redsync/v4 (a Redlock, over its
// go-redis v9 pool) to Locker and Extender (see Redislock for the
// pattern). Each attempt is one TryLockContext with a fresh random value,
// so a node answering "taken" holds someone else's; the retry loop is
// ours. Token and validity are the mutex's Value() and Until();
// RedsyncCertain tells a failure from an unknown outcome. The in-process
// "redsync" lock and the zoo's redsync-v4.18.1 entry are this type.
type Redsync struct {
	rs     *redsync.Redsync
	opt    lockimpl.Options
	n      int
	leases sync.Map // *lockimpl.Lease -> *redsync.Mutex
}

// NewRedsync wraps redsync over the given nodes (one client each): each
// round of node commands (an attempt's SETs, its give-back) bounded by
// opt.NodeTimeout, drift opt.DriftFactor, opt.Backoff between attempts.
// The zoo's entry sets these as redsync's defaults are.
func NewRedsync(nodes []redis.UniversalClient, opt lockimpl.Options) (*Redsync, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one node", lockimpl.ErrNoClients, nameRedsync)
	}
	pools := make([]redsyncredis.Pool, len(nodes))
	for i, c := range nodes {
		pools[i] = goredis.NewPool(c)
	}
	return &Redsync{rs: redsync.New(pools...), opt: opt.WithDefaults(len(nodes)), n: len(nodes)}, nil
}

// Acquire locks the mutex named key, attempting until one attempt takes
// it, one's outcome is unknown, or ctx leaves too little time for another
// (a certain failure).
func (a *Redsync) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	m := a.rs.NewMutex(key, redsync.WithExpiry(a.opt.TTL),
		redsync.WithDriftFactor(max(a.opt.DriftFactor, 0)),
		redsync.WithTimeoutFactor(float64(a.opt.NodeTimeout)/float64(a.opt.TTL)))
	for i := 0; ; i++ {
		if i > 0 && !ctxtime.Sleep(ctx, a.opt.Backoff(i-1), nil) {
			return nil, lockimpl.NotObtainedError(nameRedsync, key, ctx.Err())
		}
		// An attempt needs two rounds: its SETs, its give-back.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 2*a.opt.NodeTimeout {
			return nil, lockimpl.NotObtainedError(nameRedsync, key, context.DeadlineExceeded)
		}
		if err := ctx.Err(); err != nil {
			return nil, lockimpl.NotObtainedError(nameRedsync, key, err)
		}
		err := m.TryLockContext(ctx)
		if err == nil {
			l := lockimpl.NewLease(key, m.Value(), 0, a.opt.TTL, m.Until())
			a.leases.Store(l, m)
			return l, nil
		}
		if !RedsyncCertain(err, a.n, false, lockimpl.WalkErrors) {
			return nil, lockimpl.UnknownError(nameRedsync, "acquire", key, err)
		}
	}
}

// Release unlocks on every node through redsync.
func (a *Redsync) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedsync, "release (unknown lease)", l.Key)
	}
	ok, err := v.(*redsync.Mutex).UnlockContext(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case ok:
		return nil
	case RedsyncCertain(err, a.n, true, lockimpl.WalkErrors):
		return lockimpl.NotHeldError(nameRedsync, fmt.Sprintf("release (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(nameRedsync, "release", l.Key, err)
}

// Extend extends on a quorum through redsync; the new validity is
// Until().
func (a *Redsync) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.Load(l)
	if !ok {
		return lockimpl.NotHeldError(nameRedsync, "extend (unknown lease)", l.Key)
	}
	m := v.(*redsync.Mutex)
	ok, err := m.ExtendContext(ctx)
	switch {
	case ok:
		l.SetValidity(m.Until())
		return nil
	case RedsyncCertain(err, a.n, false, lockimpl.WalkErrors):
		return lockimpl.NotHeldError(nameRedsync, fmt.Sprintf("extend (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(nameRedsync, "extend", l.Key, err)
}

// RedsyncCertain reports whether a failed redsync call over n nodes (a
// release, else an acquire or extend) certainly took no effect, from the
// nodes' answers in err (walk visits every error it holds). A node did not
// act when it answered "not ours" (ErrNodeTaken, ErrLockAlreadyExpired, a
// node of ErrTaken) or the command never left (lockimpl.NotSent). An
// acquire or extend took no effect when the nodes that may have acted
// cannot make a quorum (ErrFailed and ErrExtendFailed are unknown); a
// release, when a quorum answered "not ours" or no node may have acted.
func RedsyncCertain(err error, n int, release bool, walk func(err error, visit func(error))) bool {
	notOurs, notSent := 0, 0
	walk(err, func(e error) {
		switch e := e.(type) {
		case *redsync.ErrTaken:
			notOurs += len(e.Nodes)
		case *redsync.ErrNodeTaken:
			notOurs++
		case *redsync.RedisError:
			if lockimpl.NotSent(e.Err) {
				notSent++
			}
		}
		if e == redsync.ErrLockAlreadyExpired {
			notOurs++
		}
	})
	quorum := n/2 + 1
	if release {
		return notOurs >= quorum || notOurs+notSent == n
	}
	return n-notOurs-notSent < quorum
}
