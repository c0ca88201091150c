// Command client is the lockstorm zoo's client for
// github.com/go-redsync/redsync/v4 v4.12.0 and v4.12.1 (Redlock over N
// independent nodes, go-redis v9 pools): the line protocol of
// docs/client-protocol.md on stdin and stdout, one redsync pool per
// LOCKSTORM_NODES proxy. The same main.go builds both entries; each
// entry's go.mod pins the release, and the client names the release it
// was built with (its build information).
//
// v4.12.0 carries upstream PR #149: an Extend whose script fails on one
// node (a network error) releases the holder's value on every node,
// while the other nodes' extensions still count; PR #151 (v4.12.1)
// removed that clean-up. The adapter reports what the library answers,
// bug included (README.md).
//
// The mapping (README.md) is redsync v4.18.1's adapter: acquire is a loop
// of single tries on a mutex made by NewMutex(key, WithExpiry(ttl),
// WithTries(1)) — LockContext with one try, because v4.12's TryLock drops
// the node errors of its try — bounded by the request's timeout; release
// is UnlockContext and extend ExtendContext. The token is the mutex's
// Value() (the library's random value, stored on the nodes) and the
// validity is the mutex's Until(). Each node's command is bounded by the
// node timeout (LOCKSTORM_NODE_TIMEOUT_MS) through go-redis's read and
// write timeouts.
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
	"github.com/hashicorp/go-multierror"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
	"github.com/lockstorm/lockstorm/protocol"
)

// redsyncModule is the module whose release this client was built with.
const redsyncModule = "github.com/go-redsync/redsync/v4"

// name is "redsync vX.Y.Z", the release the entry's go.mod pins.
var name = "redsync " + protocol.ModuleVersion(redsyncModule)

// The library's defaults this adapter relies on (redsync.go, NewMutex).
const (
	// timeoutFactor bounds one node's command of an acquire attempt (and
	// of the release after a failed attempt) to timeoutFactor x expiry.
	timeoutFactor = 0.05
	// minDelay and maxDelay: v4.18.1's default wait between two tries,
	// drawn uniformly (v4.12's default is the same: rand(50, 250) ms).
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
			// One command on one node waits at most the node timeout:
			// redsync bounds an acquire's commands itself but runs an
			// extend or a release under the caller's context alone, for
			// all nodes at once.
			o := lockimpl.ClientOptions(addr)
			o.ReadTimeout, o.WriteTimeout = opt.NodeTimeout, opt.NodeTimeout
			clients[i] = redis.NewClient(o)
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
	m := a.rs.NewMutex(key, redsync.WithExpiry(a.ttl), redsync.WithTries(1))
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
		// One try (WithTries(1)): v4.12's TryLockContext answers ErrFailed
		// for every failed try, node errors or not; LockContext with one
		// try returns them, as v4.18.1's TryLockContext does.
		err := m.LockContext(ctx)
		if err == nil {
			l := lockimpl.NewLease(key, m.Value(), 0, a.ttl, m.Until())
			a.mutexes.Store(l, m)
			return l, nil
		}
		if !a.certainlyNot(err, false) {
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
	case a.certainlyNot(err, true):
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
	case a.certainlyNot(err, false):
		return lockimpl.NotHeldError(name, fmt.Sprintf("extend (%v)", err), l.Key)
	}
	return lockimpl.UnknownError(name, "extend", l.Key, err)
}

// certainlyNot is the classification of lockimpl/adapters' redsync
// adapter (adapters.RedsyncCertain) on this release's errors.
func (a *adapter) certainlyNot(err error, release bool) bool {
	return adapters.RedsyncCertain(err, a.n, release, walkNodeErrors)
}

// walkNodeErrors calls f on err and everything it wraps. v4.12 collects
// the nodes' errors in a go-multierror Error (v4.18.1: errors.Join),
// whose Unwrap chain hides the node errors' types: its Errors are walked
// instead.
func walkNodeErrors(err error, f func(error)) {
	var me *multierror.Error
	if errors.As(err, &me) {
		for _, e := range me.Errors {
			lockimpl.WalkErrors(e, f)
		}
		return
	}
	lockimpl.WalkErrors(err, f)
}
