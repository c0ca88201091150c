// Command client is the lockstorm zoo's client for
// github.com/go-redsync/redsync/v4 v4.0.3 (Redlock over N independent
// nodes, go-redis v8 pools): the line protocol of docs/client-protocol.md
// on stdin and stdout, one redsync pool per LOCKSTORM_NODES proxy.
//
// v4.0.3 is the last release before upstream PR #61 (in v4.0.4), which
// fixed Unlock and Extend answering true for a lock that had expired or
// was held by another (README.md). The adapter reports what the library
// answers, bug included. zoo/redsync-v4.0.4, the twin of the fix, links
// this same file: only its go.mod pin differs, and the client names the
// release it was built with from its build information.
//
// The mapping (README.md): acquire is a loop of LockContext tries on a
// mutex made by NewMutex(key, WithExpiry(ttl), WithTries(1)) — one try
// per call, v4.0.3 has no TryLock — bounded by the request's timeout;
// release is UnlockContext and extend ExtendContext. The token is the
// mutex's value, produced by the library's own generator (genValue, 16
// random bytes in base64) handed in through WithGenValueFunc so that the
// adapter can read it: v4.0.3 has no Value().
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	mrand "math/rand/v2"
	"net"
	"sync"
	"time"

	goredislib "github.com/go-redis/redis/v8"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v8"
	"github.com/hashicorp/go-multierror"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

var name = "redsync " + protocol.ModuleVersion("github.com/go-redsync/redsync/v4")

// The wait between two tries: drawn uniformly from redsync v4.18.1's
// default (v4.0.3's own default is a fixed 500 ms), so that both redsync
// entries of the zoo retry alike.
const (
	minDelay = 50 * time.Millisecond
	maxDelay = 250 * time.Millisecond
)

func main() {
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		pools := make([]redsyncredis.Pool, len(env.Nodes))
		clients := make([]*goredislib.Client, len(env.Nodes))
		for i, addr := range env.Nodes {
			// One go-redis client per node: no silent retries (a retried
			// SET NX would read our own key as taken); v8 honours context
			// deadlines by itself.
			clients[i] = goredislib.NewClient(&goredislib.Options{
				Addr:         addr,
				MaxRetries:   -1,
				DialTimeout:  time.Second,
				ReadTimeout:  3 * time.Second,
				WriteTimeout: 3 * time.Second,
			})
			pools[i] = goredis.NewPool(clients[i])
		}
		closeAll := func() {
			for _, c := range clients {
				c.Close()
			}
		}
		return &adapter{rs: redsync.New(pools...), opt: opt}, closeAll, nil
	})
}

// adapter is redsync v4.0.3 behind lockimpl.Locker and lockimpl.Extender.
type adapter struct {
	rs      *redsync.Redsync
	opt     lockimpl.Options
	mutexes sync.Map // *lockimpl.Lease -> *redsync.Mutex
}

// Acquire tries the mutex until it is taken or ctx leaves too little time
// for another try. Each try is bounded by the node timeout (the library
// bounds nothing by itself in v4.0.3).
func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	var value string
	m := a.rs.NewMutex(key, redsync.WithExpiry(a.opt.TTL), redsync.WithTries(1),
		redsync.WithGenValueFunc(func() (string, error) {
			v, err := genValue()
			value = v
			return v, err
		}))
	for i := 0; ; i++ {
		if i > 0 {
			t := time.NewTimer(minDelay + mrand.N(maxDelay-minDelay))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, lockimpl.NotObtainedError(name, key, ctx.Err())
			case <-t.C:
			}
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < a.opt.NodeTimeout {
			return nil, lockimpl.NotObtainedError(name, key, context.DeadlineExceeded)
		}
		start := time.Now()
		tctx, cancel := context.WithTimeout(ctx, a.opt.NodeTimeout)
		err := m.LockContext(tctx)
		cancel()
		switch {
		case err == nil:
			l := lockimpl.NewLease(key, value, 0, a.opt.TTL, a.opt.ValidUntil(start))
			a.mutexes.Store(l, m)
			return l, nil
		case errors.Is(err, redsync.ErrFailed):
			// The library's "failed to acquire" (it has given back what
			// it got): taken at its word.
			continue
		case notSent(err):
			continue
		}
		// No node granted and some answered with an error: the SET may
		// have landed there.
		return nil, lockimpl.UnknownError(name, "acquire", key, err)
	}
}

// Release unlocks the mutex on every node. v4.0.3 answers false only when
// fewer than a quorum of nodes replied at all.
func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	ok, err := v.(*redsync.Mutex).UnlockContext(ctx)
	l.MarkLost(lockimpl.ErrReleased)
	if ok {
		return nil
	}
	if err == nil {
		err = errors.New("unlock answered false")
	}
	return lockimpl.UnknownError(name, "release", l.Key, err)
}

// Extend extends the mutex on every node. v4.0.3 computes no validity for
// an extend: the adapter's is TTL minus the drift allowance from before
// the call.
func (a *adapter) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.mutexes.Load(l)
	if !ok {
		return lockimpl.NotHeldError(name, "extend (unknown lease)", l.Key)
	}
	start := time.Now()
	ok, err := v.(*redsync.Mutex).ExtendContext(ctx)
	if ok {
		l.SetValidity(a.opt.ValidUntil(start))
		return nil
	}
	if err == nil {
		err = errors.New("extend answered false")
	}
	return lockimpl.UnknownError(name, "extend", l.Key, err)
}

// notSent reports whether err is a set of node errors each of which
// certainly kept its command from leaving (a failed dial).
func notSent(err error) bool {
	var me *multierror.Error
	if !errors.As(err, &me) || len(me.Errors) == 0 {
		return false
	}
	for _, e := range me.Errors {
		var op *net.OpError
		if !errors.As(e, &op) || op.Op != "dial" {
			return false
		}
	}
	return true
}

// genValue is redsync v4.0.3's own value generator (mutex.go, unexported):
// 16 random bytes, base64.
func genValue() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
