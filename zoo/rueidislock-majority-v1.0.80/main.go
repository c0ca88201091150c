// Command client is the lockstorm zoo's client for
// github.com/redis/rueidis/rueidislock v1.0.80 in its key-majority mode,
// KeyMajority 2 (its default): three keys rueidislock:{0,1,2}:NAME, of
// which the lock needs two, all on the one Redis the client connects to
// (README.md): the line protocol of docs/client-protocol.md on stdin and
// stdout, on the first LOCKSTORM_NODES proxy.
//
// The mapping (README.md): acquire is Locker.WithContext, whose returned
// context is the lock; the library extends the key by itself every
// ExtendInterval and cancels that context when it no longer holds the
// lock, which the adapter reports as a lost event. Release is the
// returned cancel function. The library exposes neither the value it
// stores nor its extensions: the adapter observes its commands through
// LockerOption.ClientBuilder (a wrapper that only reads the commands and
// their replies, never sends or alters one) to report the token (the
// stored value, hex-encoded: it is 24 random bytes) and a renewed event
// for each extension Redis confirmed.
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

const (
	name = "rueidislock v1.0.80 (KeyMajority 2)"
	// keyMajority: the library's default (LockerOption.KeyMajority).
	keyMajority = 2
)

// The library's scripts (rueidislock/lock.go at v1.0.80, unexported), by
// which the observer recognises the commands it reads: acquire (SET NX
// PXAT, the default without FallbackSETPX) and extend (PEXPIREAT).
const (
	scriptAcquire = `local r = redis.call("SET",KEYS[1],ARGV[1],"NX","PXAT",ARGV[2]);redis.call("GET",KEYS[1]);return r`
	scriptExtend  = `if redis.call("GET",KEYS[1]) == ARGV[1] then local r = redis.call("PEXPIREAT",KEYS[1],ARGV[2]);redis.call("GET",KEYS[1]);return r end;return 0`
)

var (
	shaAcquire = sha1hex(scriptAcquire)
	shaExtend  = sha1hex(scriptExtend)
)

func sha1hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func main() {
	env, err := protocol.ReadEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	opt := env.Options.WithDefaults(1)
	a := &adapter{opt: opt, majority: keyMajority}
	locker, err := rueidislock.NewLocker(rueidislock.LockerOption{
		ClientOption:   rueidis.ClientOption{InitAddress: []string{env.Nodes[0]}},
		KeyMajority:    keyMajority,
		NoLoopTracking: true, // the README's advice for Redis >= 7.0.5
		KeyValidity:    opt.TTL,
		ExtendInterval: opt.RenewEvery,
		ClientBuilder: func(o rueidis.ClientOption) (rueidis.Client, error) {
			c, err := rueidis.NewClient(o)
			if err != nil {
				return nil, err
			}
			return &observer{Client: c}, nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: NewLocker: %v\n", name, err)
		os.Exit(3)
	}
	defer locker.Close()
	a.locker = locker
	if err := protocol.Serve(context.Background(), os.Stdin, os.Stdout, a, protocol.Config{TTL: opt.TTL, Log: os.Stderr}); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(3)
	}
}

// adapter is rueidislock behind lockimpl.Locker. It offers no Extender:
// the library extends by itself and has no extend call.
type adapter struct {
	locker   rueidislock.Locker
	opt      lockimpl.Options
	majority int
	leases   sync.Map // *lockimpl.Lease -> *held
}

// held is an answered lease: the library's lock context and cancel
// function, and the cancel of the context the lock was taken under.
type held struct {
	ctx     context.Context
	release context.CancelFunc
	stop    context.CancelFunc
}

// Acquire waits in WithContext until the library holds the lock or the
// request's context ends. The lock's context must outlive the request, so
// WithContext gets a context of its own, canceled only if the request
// ends first (the library then answers with that context's error: not
// obtained).
func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	at := &attempt{keys: map[string]time.Time{}, drift: a.opt.Drift(), majority: a.majority}
	parent, stop := context.WithCancel(context.WithValue(context.Background(), attemptKey{}, at))
	stopOnEnd := context.AfterFunc(ctx, stop)
	lockCtx, release, err := a.locker.WithContext(parent, key)
	if err != nil {
		fired := !stopOnEnd()
		stop()
		if fired && errors.Is(err, context.Canceled) {
			return nil, lockimpl.NotObtainedError(name, key, err)
		}
		return nil, lockimpl.UnknownError(name, "acquire", key, err)
	}
	if !stopOnEnd() {
		// The request ended as the library returned the lock: canceling
		// our context has given it back already.
		release()
		stop()
		return nil, lockimpl.UnknownError(name, "acquire", key, errors.New("obtained as the request's timeout ended, and given back at once"))
	}
	l, err := at.answer(key, a.opt.TTL, a.opt.NodeNames[:1])
	if err != nil {
		release()
		stop()
		return nil, lockimpl.UnknownError(name, "acquire", key, err)
	}
	a.leases.Store(l, &held{ctx: lockCtx, release: release, stop: stop})
	context.AfterFunc(lockCtx, func() {
		l.MarkLost(fmt.Errorf("%w: %s %q: the library canceled the lock's context: %v", lockimpl.ErrLost, name, key, context.Cause(lockCtx)))
	})
	return l, nil
}

// Release calls the lock's cancel function, which returns once the
// library has stopped extending and sent its deletes. It reports nothing
// more: ok when it returned, not held when the library had canceled the
// lock's context before (it said the lock was lost), unknown when it did
// not return within the request's timeout.
func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	h := v.(*held)
	if h.ctx.Err() != nil {
		h.stop()
		return lockimpl.NotHeldError(name, "release (the library had canceled the lock's context: lost)", l.Key)
	}
	l.MarkLost(lockimpl.ErrReleased)
	done := make(chan struct{})
	go func() {
		h.release()
		h.stop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return lockimpl.UnknownError(name, "release", l.Key, fmt.Errorf("the lock's cancel function had not returned: %w", ctx.Err()))
	}
}

// attemptKey is the context key of an Acquire's attempt: the library
// passes the context it was given down to every command of the lock
// (acquire and extend), which is how the observer finds the attempt.
type attemptKey struct{}

// attempt is what the observer saw of one Acquire's commands.
type attempt struct {
	drift    time.Duration
	majority int

	mu    sync.Mutex
	val   string               // the value of the latest try (each try draws its own)
	keys  map[string]time.Time // keys held with val: the validity Redis confirmed for each
	lease *lockimpl.Lease      // once answered
}

// sending notes an acquire command of value val: a new value is a new try.
func (at *attempt) sending(val string) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if val != at.val {
		at.val = val
		clear(at.keys)
	}
}

// confirmed notes a reply to an acquire or extend of key with value val:
// ok with the validity it gives, or not ok (the key is not counted).
func (at *attempt) confirmed(key, val string, ok bool, valid time.Time) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if val != at.val {
		return // an earlier try's
	}
	if !ok {
		delete(at.keys, key)
		return
	}
	if valid.After(at.keys[key]) {
		at.keys[key] = valid
	}
	if at.lease != nil {
		if v := at.validity(); v.After(at.lease.Validity()) {
			at.lease.SetValidity(v) // the protocol sends a renewed event
		}
	}
}

// validity is the instant until which a majority of keys are confirmed
// held: the majority-th latest of their validities (zero if too few).
func (at *attempt) validity() time.Time {
	vs := make([]time.Time, 0, len(at.keys))
	for _, v := range at.keys {
		vs = append(vs, v)
	}
	if len(vs) < at.majority {
		return time.Time{}
	}
	slices.SortFunc(vs, func(a, b time.Time) int { return b.Compare(a) })
	return vs[at.majority-1]
}

// answer makes the lease of a lock the library has just returned.
func (at *attempt) answer(key string, ttl time.Duration, nodes []string) (*lockimpl.Lease, error) {
	at.mu.Lock()
	defer at.mu.Unlock()
	v := at.validity()
	if at.val == "" || v.IsZero() {
		return nil, fmt.Errorf("the library returned a lock, but the adapter saw no majority of acquire commands granted (value %q, %d keys): did its scripts change?", at.val, len(at.keys))
	}
	l := lockimpl.NewLease(key, hex.EncodeToString([]byte(at.val)), 0, ttl, v)
	l.Nodes = nodes
	at.lease = l
	return l, nil
}

// observer wraps the library's rueidis.Client: for the commands of an
// attempt it reads each acquire and extend command and its reply.
type observer struct {
	rueidis.Client
}

const (
	cmdAcquire = iota + 1
	cmdExtend
)

func (o *observer) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	at, _ := ctx.Value(attemptKey{}).(*attempt)
	if at == nil {
		return o.Client.Do(ctx, cmd)
	}
	kind, key, val, deadline := parse(cmd.Commands()) // before Do: it recycles cmd
	if kind == 0 {
		return o.Client.Do(ctx, cmd)
	}
	if kind == cmdAcquire {
		at.sending(val)
	}
	sent := time.Now()
	resp := o.Client.Do(ctx, cmd)
	// The key expires at deadline (PXAT, PEXPIREAT: the library's wall
	// clock), which the library computed before sending: counted on the
	// monotonic clock from the send, minus the drift allowance.
	valid := sent.Add(time.UnixMilli(deadline).Sub(sent) - at.drift)
	switch kind {
	case cmdAcquire:
		at.confirmed(key, val, resp.Error() == nil, valid)
	case cmdExtend:
		n, err := resp.AsInt64()
		at.confirmed(key, val, err == nil && n == 1, valid)
	}
	return resp
}

// parse recognises EVALSHA/EVAL of the acquire and extend scripts: one
// key, then the value and the deadline in Unix milliseconds.
func parse(args []string) (kind int, key, val string, deadline int64) {
	if len(args) != 6 || args[2] != "1" {
		return 0, "", "", 0
	}
	switch {
	case strings.EqualFold(args[0], "EVALSHA") && args[1] == shaAcquire,
		strings.EqualFold(args[0], "EVAL") && args[1] == scriptAcquire:
		kind = cmdAcquire
	case strings.EqualFold(args[0], "EVALSHA") && args[1] == shaExtend,
		strings.EqualFold(args[0], "EVAL") && args[1] == scriptExtend:
		kind = cmdExtend
	default:
		return 0, "", "", 0
	}
	d, err := strconv.ParseInt(args[5], 10, 64)
	if err != nil {
		return 0, "", "", 0
	}
	return kind, args[3], args[4], d
}
