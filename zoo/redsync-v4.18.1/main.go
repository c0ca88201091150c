// Command client is the lockstorm zoo's client for
// github.com/go-redsync/redsync/v4 v4.18.1 (Redlock over N independent
// nodes, go-redis v9 pools): the line protocol of docs/client-protocol.md
// on stdin and stdout, one redsync pool per LOCKSTORM_NODES proxy.
//
// The mapping (README.md): acquire is a loop of TryLockContext on a mutex
// made by NewMutex(key, WithExpiry(ttl)) — the library's own Lock is that
// loop with a fixed count of tries; ours is bounded by the request's
// timeout instead — release is UnlockContext and extend ExtendContext.
// The token is the mutex's Value() (the library's random value, stored on
// the nodes) and the validity is the mutex's Until().
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

const name = "redsync v4.18.1"

// The library's defaults this adapter relies on (redsync.go, NewMutex).
const (
	// timeoutFactor bounds one node's command of an acquire attempt (and
	// of the release after a failed attempt) to timeoutFactor x expiry.
	timeoutFactor = 0.05
	// minDelay and maxDelay: Lock's default wait between two tries,
	// drawn uniformly.
	minDelay = 50 * time.Millisecond
	maxDelay = 250 * time.Millisecond
)

func main() {
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		pools := make([]redsyncredis.Pool, len(env.Nodes))
		clients := make([]*redis.Client, len(env.Nodes))
		for i, addr := range env.Nodes {
			// One go-redis client per node, configured as lockstorm's own
			// locks are: context deadlines honoured, no silent retries.
			clients[i] = redis.NewClient(lockimpl.ClientOptions(addr))
			pools[i] = goredis.NewPool(clients[i])
		}
		closeAll := func() {
			for _, c := range clients {
				c.Close()
			}
		}
		return &adapter{rs: redsync.New(pools...), ttl: opt.TTL, n: len(pools)}, closeAll, nil
	})
}

// adapter is redsync behind lockimpl.Locker and lockimpl.Extender.
type adapter struct {
	rs      *redsync.Redsync
	ttl     time.Duration
	n       int
	mutexes sync.Map // *lockimpl.Lease -> *redsync.Mutex
}

// Acquire tries the mutex until it is taken or ctx leaves too little time
// for another try. A try whose outcome is unknown (a node error after
// the command may have been sent, too few certain answers to rule out a
// quorum) ends the loop with an unknown outcome.
func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	m := a.rs.NewMutex(key, redsync.WithExpiry(a.ttl))
	// A try is its SETs, then (when it fails) its release, each bounded
	// by the library to timeoutFactor x expiry.
	try := 2 * time.Duration(float64(a.ttl)*timeoutFactor)
	for i := 0; ; i++ {
		if i > 0 {
			delay := minDelay + rand.N(maxDelay-minDelay)
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, lockimpl.NotObtainedError(name, key, ctx.Err())
			case <-t.C:
			}
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < try {
			return nil, lockimpl.NotObtainedError(name, key, context.DeadlineExceeded)
		}
		err := m.TryLockContext(ctx)
		if err == nil {
			l := lockimpl.NewLease(key, m.Value(), 0, a.ttl, m.Until())
			a.mutexes.Store(l, m)
			return l, nil
		}
		if !a.certainlyNot(err) {
			return nil, lockimpl.UnknownError(name, "acquire", key, err)
		}
	}
}

// Release unlocks the mutex on every node.
func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	ok, err := v.(*redsync.Mutex).UnlockContext(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case ok:
		return nil
	case a.certainlyNot(err):
		return lockimpl.NotHeldError(name, fmt.Sprintf("release (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(name, "release", l.Key, err)
}

// Extend extends the mutex on a quorum; the new validity is Until().
func (a *adapter) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.Load(l)
	if !ok {
		return lockimpl.NotHeldError(name, "extend (unknown lease)", l.Key)
	}
	m := v.(*redsync.Mutex)
	ok, err := m.ExtendContext(ctx)
	switch {
	case ok:
		l.SetValidity(m.Until())
		return nil
	case errors.Is(err, redsync.ErrExtendFailed):
		// A quorum extended, but after the validity it would give: the
		// library declines it, yet the nodes did extend. Unknown.
		return lockimpl.UnknownError(name, "extend", l.Key, err)
	case a.certainlyNot(err):
		return lockimpl.NotHeldError(name, fmt.Sprintf("extend (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(name, "extend", l.Key, err)
}

// certainlyNot reports whether a failed redsync call certainly did not
// act on a quorum: a quorum answered "taken" (ErrTaken), or every node
// either answered or was never reached, or so many nodes answered "not
// ours" (ErrNodeTaken, ErrLockAlreadyExpired) or were never reached that
// the nodes in doubt cannot make a quorum. The failure the library
// returns with no node error (ErrFailed: granted too late, given back)
// is certain too.
func (a *adapter) certainlyNot(err error) bool {
	var taken *redsync.ErrTaken
	if errors.As(err, &taken) {
		return true
	}
	notDone, unknown := 0, 0
	lockimpl.WalkErrors(err, func(e error) {
		switch e := e.(type) {
		case *redsync.ErrNodeTaken:
			notDone++
		case *redsync.RedisError:
			if lockimpl.NotSent(e.Err) {
				notDone++
			} else {
				unknown++
			}
		}
		if e == redsync.ErrLockAlreadyExpired {
			notDone++
		}
	})
	quorum := a.n/2 + 1
	return unknown == 0 || notDone > a.n-quorum
}
