// Command client is the lockstorm zoo's client for go-zero's Redis lock,
// github.com/zeromicro/go-zero core/stores/redis RedisLock: the line
// protocol of docs/client-protocol.md on stdin and stdout, on the first
// LOCKSTORM_NODES proxy. The same source serves every go-zero entry; each
// entry's go.mod pins the version (README.md).
//
// The mapping (README.md): one RedisLock (NewRedisLock) per lease;
// acquire calls Acquire until it answers true or the request's time is
// up; extend calls Acquire again on the same RedisLock, which is how a
// go-zero user renews a lock (the lock is documented as re-entrant);
// release calls Release. SetExpire(seconds) is called when
// LOCKSTORM_TTL_MS is a whole number of seconds and the entry asks for
// it (-set-expire); without it the lock keeps go-zero's default expiry.
// The token is the RedisLock's own random id, read from the library's
// object (it has no accessor): never invented.
package main

import (
	"context"
	"errors"
	"flag"
	"reflect"
	"sync"
	"time"

	"github.com/zeromicro/go-zero/core/breaker"
	"github.com/zeromicro/go-zero/core/logx"
	"github.com/zeromicro/go-zero/core/stores/redis"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// name is the library and the go-zero release this client was built
// with (its build information): every go-zero entry links this file, its
// go.mod pins the release.
var name = "go-zero RedisLock " + protocol.ModuleVersion("github.com/zeromicro/go-zero")

// retry is the wait between two Acquire tries of one acquire request.
const retry = 20 * time.Millisecond

func main() {
	setExpire := flag.Bool("set-expire", true, "call SetExpire(TTL in seconds) on each lock; false keeps go-zero's default expiry")
	validity := flag.Duration("validity", 0, "the lease's validity the adapter reports, from each Acquire's send (default: the TTL)")
	flag.Parse()
	logx.Disable() // go-zero logs to stdout, the protocol's stream
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		store := redis.New(env.Nodes[0])
		a := &adapter{store: store, opt: opt, setExpire: *setExpire, validity: opt.TTL}
		if *validity > 0 {
			a.validity = *validity
		}
		return a, func() {}, nil
	})
}

type adapter struct {
	store     *redis.Redis
	opt       lockimpl.Options
	setExpire bool
	validity  time.Duration
	locks     sync.Map // *lockimpl.Lease -> *redis.RedisLock
}

// validUntil is the lease's end as the adapter reports it: validity from
// the call's send, minus the drift allowance, as lockimpl computes it.
func (a *adapter) validUntil(start time.Time) time.Time {
	o := a.opt
	o.TTL = a.validity
	return o.ValidUntil(start)
}

// call runs fn, which cannot be canceled, bounded by ctx: when ctx ends
// first the outcome is unknown (ok false, done false).
func call(ctx context.Context, fn func() (bool, error)) (ok bool, err error, done bool) {
	type res struct {
		ok  bool
		err error
	}
	ch := make(chan res, 1)
	go func() { o, e := fn(); ch <- res{o, e} }()
	select {
	case r := <-ch:
		return r.ok, r.err, true
	case <-ctx.Done():
		return false, ctx.Err(), false
	}
}

func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	rl := redis.NewRedisLock(a.store, key)
	if a.setExpire && a.opt.TTL >= time.Second {
		rl.SetExpire(int(a.opt.TTL / time.Second))
	}
	for {
		start := time.Now()
		ok, err, done := call(ctx, rl.Acquire)
		switch {
		case !done:
			return nil, lockimpl.UnknownError(name, "acquire", key, err)
		case ok:
			l := lockimpl.NewLease(key, token(rl), 0, a.opt.TTL, a.validUntil(start))
			a.locks.Store(l, rl)
			return l, nil
		case err != nil && !errors.Is(err, breaker.ErrServiceUnavailable):
			// The script may have run: unknown.
			return nil, lockimpl.UnknownError(name, "acquire", key, err)
		}
		// false: the key is held by another (or the breaker kept the
		// command from leaving).
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, lockimpl.NotObtainedError(name, key, ctx.Err())
		case <-t.C:
		}
	}
}

// Extend acquires again on the lease's RedisLock.
func (a *adapter) Extend(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.Load(l)
	if !ok {
		return lockimpl.NotHeldError(name, "extend (unknown lease)", l.Key)
	}
	start := time.Now()
	ok, err, done := call(ctx, v.(*redis.RedisLock).Acquire)
	switch {
	case ok:
		l.SetValidity(a.validUntil(start))
		return nil
	case done && err == nil:
		return lockimpl.NotHeldError(name, "extend (Acquire answered false)", l.Key)
	case done && errors.Is(err, breaker.ErrServiceUnavailable):
		return lockimpl.NotHeldError(name, "extend (not sent: circuit breaker open)", l.Key)
	}
	return lockimpl.UnknownError(name, "extend", l.Key, err)
}

func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.locks.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	ok, err, done := call(ctx, v.(*redis.RedisLock).Release)
	l.MarkLost(lockimpl.ErrReleased)
	switch {
	case ok:
		return nil
	case done && err == nil:
		return lockimpl.NotHeldError(name, "release (Release answered false)", l.Key)
	}
	return lockimpl.UnknownError(name, "release", l.Key, err)
}

// token is the RedisLock's random id, the value it stores under the key.
// The library has no accessor: the unexported field is read, never
// written.
func token(rl *redis.RedisLock) string {
	return reflect.ValueOf(rl).Elem().FieldByName("id").String()
}
