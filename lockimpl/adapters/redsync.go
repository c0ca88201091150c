package adapters

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// Redsync adapts github.com/go-redsync/redsync/v4 (a Redlock written by
// others, with its go-redis v9 pool) to Locker and Extender; see
// Redislock for the adapter pattern. Each acquire attempt is one
// TryLockContext (redsync asks every node, waits for all of them, and
// gives back what it got when the attempt failed) with a fresh random
// value, so a node that answers "taken" certainly holds someone else's;
// the retry loop is ours. The lease's token is the mutex's Value() and
// its validity redsync's own Until().
//
// Failures are classified from the nodes' answers in redsync's error
// (RedsyncCertain): an acquire or extend fails (ErrNotObtained,
// ErrNotHeld) only when the nodes that may have acted cannot make a
// quorum, a release only when a quorum answered "not ours" or no node
// may have acted; anything else is ErrOutcomeUnknown. The in-process
// "redsync" lock and the zoo's redsync-v4.18.1 entry are this type.
type Redsync struct {
	rs     *redsync.Redsync
	name   string // in errors
	ttl    time.Duration
	n      int
	mutex  []redsync.Option          // NewMutex options
	try    time.Duration             // the least time an attempt needs: its SETs and its give-back
	delay  func(i int) time.Duration // wait before attempt i+1
	leases sync.Map                  // *lockimpl.Lease -> *redsync.Mutex
}

// The defaults of redsync v4.18.1's NewMutex this package relies on.
const (
	// redsyncTimeoutFactor bounds one round of node commands (the SETs of
	// an attempt, the give-back after a failed one) to this share of the
	// expiry.
	redsyncTimeoutFactor = 0.05
	// redsyncMinDelay and redsyncMaxDelay: Lock's wait between two tries,
	// drawn uniformly.
	redsyncMinDelay = 50 * time.Millisecond
	redsyncMaxDelay = 250 * time.Millisecond
)

// NewRedsync wraps redsync over the given nodes (one client each), tuned
// as lockstorm's own locks: each round of node commands bounded by
// opt.NodeTimeout, drift opt.DriftFactor, opt.Backoff between attempts.
func NewRedsync(nodes []redis.UniversalClient, opt lockimpl.Options) (*Redsync, error) {
	o := opt.WithDefaults(len(nodes))
	return newRedsync(nodes, nameRedsync, o.TTL, o.NodeTimeout, o.Backoff,
		redsync.WithDriftFactor(max(o.DriftFactor, 0)),
		redsync.WithTimeoutFactor(float64(o.NodeTimeout)/float64(o.TTL)))
}

// NewRedsyncAtDefaults wraps redsync as its README uses it:
// NewMutex(key, WithExpiry(ttl)) with every other option at the library's
// default (5% of the expiry per round of node commands, 1% drift), and
// between attempts the wait of the library's Lock (50-250 ms, uniform).
// name names the lock in errors.
func NewRedsyncAtDefaults(nodes []redis.UniversalClient, ttl time.Duration, name string) (*Redsync, error) {
	delay := func(int) time.Duration { return redsyncMinDelay + rand.N(redsyncMaxDelay-redsyncMinDelay) }
	return newRedsync(nodes, name, ttl, time.Duration(float64(ttl)*redsyncTimeoutFactor), delay)
}

func newRedsync(nodes []redis.UniversalClient, name string, ttl, round time.Duration, delay func(int) time.Duration, mutex ...redsync.Option) (*Redsync, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one node", lockimpl.ErrNoClients, name)
	}
	pools := make([]redsyncredis.Pool, len(nodes))
	for i, c := range nodes {
		pools[i] = goredis.NewPool(c)
	}
	return &Redsync{rs: redsync.New(pools...), name: name, ttl: ttl, n: len(nodes),
		mutex: append([]redsync.Option{redsync.WithExpiry(ttl)}, mutex...), try: 2 * round, delay: delay}, nil
}

// Acquire locks the mutex named key, attempting until one attempt takes
// it, one's outcome is unknown, or ctx leaves too little time for another
// (a certain failure).
func (a *Redsync) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	m := a.rs.NewMutex(key, a.mutex...)
	for i := 0; ; i++ {
		if i > 0 && !ctxtime.Sleep(ctx, a.delay(i-1), nil) {
			return nil, lockimpl.NotObtainedError(a.name, key, ctx.Err())
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < a.try {
			return nil, lockimpl.NotObtainedError(a.name, key, context.DeadlineExceeded)
		}
		if err := ctx.Err(); err != nil {
			return nil, lockimpl.NotObtainedError(a.name, key, err)
		}
		err := m.TryLockContext(ctx)
		if err == nil {
			l := lockimpl.NewLease(key, m.Value(), 0, a.ttl, m.Until())
			a.leases.Store(l, m)
			return l, nil
		}
		if !RedsyncCertain(err, a.n, false, lockimpl.WalkErrors) {
			return nil, lockimpl.UnknownError(a.name, "acquire", key, err)
		}
	}
}

// Release unlocks on every node through redsync.
func (a *Redsync) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(a.name, "release (unknown lease)", l.Key)
	}
	ok, err := v.(*redsync.Mutex).UnlockContext(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case ok:
		return nil
	case RedsyncCertain(err, a.n, true, lockimpl.WalkErrors):
		return lockimpl.NotHeldError(a.name, fmt.Sprintf("release (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(a.name, "release", l.Key, err)
}

// Extend extends on a quorum through redsync; the new validity is
// Until().
func (a *Redsync) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.Load(l)
	if !ok {
		return lockimpl.NotHeldError(a.name, "extend (unknown lease)", l.Key)
	}
	m := v.(*redsync.Mutex)
	ok, err := m.ExtendContext(ctx)
	switch {
	case ok:
		l.SetValidity(m.Until())
		return nil
	case RedsyncCertain(err, a.n, false, lockimpl.WalkErrors):
		return lockimpl.NotHeldError(a.name, fmt.Sprintf("extend (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(a.name, "extend", l.Key, err)
}

// RedsyncCertain reports whether a failed redsync call over n nodes (a
// release when release is set, else an acquire or an extend) certainly
// did not take effect, from the nodes' answers in its error; walk calls
// visit on err and on every error it holds (lockimpl.WalkErrors for
// v4.18.1's errors.Join; the zoo's v4.12 entries walk go-multierror's). A node
// certainly did not act when it answered "not ours" (ErrNodeTaken,
// ErrLockAlreadyExpired, a node of ErrTaken) or the command never left
// (lockimpl.NotSent); any other node (granted, or an error after sending)
// may have. An acquire or extend took no effect when the nodes that may
// have acted cannot make a quorum: so a quorum granted too late
// (ErrFailed, or node answers that leave a quorum) is unknown, since
// redsync drops the outcome of the give-back, and so is ErrExtendFailed
// (a quorum extended after the validity it would give). A release took
// no effect when a quorum answered "not ours" (the lock was not held), or
// when no node may have deleted our value: one that deleted it on fewer
// than a quorum may still have freed the lock.
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
