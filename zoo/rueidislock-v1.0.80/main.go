// Command client is the lockstorm zoo's client for
// github.com/redis/rueidis/rueidislock v1.0.80 with KeyMajority 1 (one
// key on one Redis), or with -key-majority N in its key-majority mode
// (2N-1 keys rueidislock:{0..}:NAME, of which the lock needs N, all on
// the one Redis the client connects to: the zoo entry
// rueidislock-majority-v1.0.80 runs it with -key-majority 2, the
// library's default): the line protocol of docs/client-protocol.md on
// stdin and stdout, on the first LOCKSTORM_NODES proxy.
//
// The mapping (README.md): acquire is Locker.WithContext, whose returned
// context is the lock; the library extends the key by itself every
// ExtendInterval and cancels that context when it no longer holds the
// lock, which the adapter reports as a lost event. Release is the
// returned cancel function. The library exposes neither the value it
// stores nor its extensions: the adapter observes its commands through
// LockerOption.ClientBuilder (a wrapper that only reads the commands and
// their replies, never sends or alters one) to report the token (the
// stored value, hex-encoded: it is 24 random bytes), a renewed event for
// each extension Redis confirmed, and the outcome of a release: what
// Redis answered to the library's own compare-and-delete commands.
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
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

// name is the library and the rueidis release this client was built
// with (its build information): the entries of other releases link this
// same file (rueidislock-v1.0.69, -v1.0.70), their go.mod pins the
// release.
var name = "rueidislock " + protocol.ModuleVersion("github.com/redis/rueidis")

// The library's scripts (rueidislock/lock.go at v1.0.80, unexported), by
// which the observer recognises the commands it reads: acquire (SET NX
// PXAT, the default without FallbackSETPX), extend (PEXPIREAT) and the
// compare-and-delete of a release.
const (
	scriptAcquire = `local r = redis.call("SET",KEYS[1],ARGV[1],"NX","PXAT",ARGV[2]);redis.call("GET",KEYS[1]);return r`
	scriptExtend  = `if redis.call("GET",KEYS[1]) == ARGV[1] then local r = redis.call("PEXPIREAT",KEYS[1],ARGV[2]);redis.call("GET",KEYS[1]);return r end;return 0`
	scriptDelete  = `if redis.call("GET",KEYS[1]) == ARGV[1] then return redis.call("DEL",KEYS[1]) end;return 0`
)

var (
	shaAcquire = sha1hex(scriptAcquire)
	shaExtend  = sha1hex(scriptExtend)
	shaDelete  = sha1hex(scriptDelete)
)

func sha1hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func main() {
	// 1: the README's setting for one Redis instance; the library's own
	// default (LockerOption.KeyMajority) is 2.
	keyMajority := flag.Int("key-majority", 1, "LockerOption.KeyMajority: the lock needs this many of 2N-1 keys")
	flag.Parse()
	protocol.Main(fmt.Sprintf("%s (KeyMajority %d)", name, *keyMajority), func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		a := &adapter{opt: opt, majority: *keyMajority, total: 2**keyMajority - 1}
		locker, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption:   rueidis.ClientOption{InitAddress: []string{env.Nodes[0]}},
			KeyMajority:    int32(*keyMajority),
			NoLoopTracking: true, // the README's advice for Redis >= 7.0.5
			KeyValidity:    opt.TTL,
			ExtendInterval: opt.RenewEvery,
			ClientBuilder: func(o rueidis.ClientOption) (rueidis.Client, error) {
				c, err := rueidis.NewClient(o)
				if err != nil {
					return nil, err
				}
				return &observer{Client: c, byValue: &a.byValue}, nil
			},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("NewLocker: %w", err)
		}
		a.locker = locker
		return a, locker.Close, nil
	})
}

// adapter is rueidislock behind lockimpl.Locker. It offers no Extender:
// the library extends by itself and has no extend call.
type adapter struct {
	locker   rueidislock.Locker
	opt      lockimpl.Options
	majority int
	total    int      // keys per lock: 2 x majority - 1
	leases   sync.Map // *lockimpl.Lease -> *held
	byValue  sync.Map // value of a try -> *attempt (the deletes carry no context of ours)
}

// held is an answered lease: the library's lock context and cancel
// function, the cancel of the context the lock was taken under, and what
// the observer saw of it.
type held struct {
	ctx     context.Context
	release context.CancelFunc
	stop    context.CancelFunc
	at      *attempt
}

// Acquire waits in WithContext until the library holds the lock or the
// request's context ends. The lock's context must outlive the request, so
// WithContext gets a context of its own, canceled only if the request
// ends first (the library then answers with that context's error: not
// obtained).
func (a *adapter) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	at := &attempt{keys: map[string]time.Time{}, final: map[string]int{}, drift: a.opt.Drift(), majority: a.majority, byValue: &a.byValue}
	parent, stop := context.WithCancel(context.WithValue(context.Background(), attemptKey{}, at))
	stopOnEnd := context.AfterFunc(ctx, stop)
	lockCtx, release, err := a.locker.WithContext(parent, key)
	if err != nil {
		fired := !stopOnEnd()
		stop()
		at.forget()
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
		at.forget()
		return nil, lockimpl.UnknownError(name, "acquire", key, errors.New("obtained as the request's timeout ended, and given back at once"))
	}
	l, err := at.answer(key, a.opt.TTL, a.opt.NodeNames[:1])
	if err != nil {
		release()
		stop()
		at.forget()
		return nil, lockimpl.UnknownError(name, "acquire", key, err)
	}
	a.leases.Store(l, &held{ctx: lockCtx, release: release, stop: stop, at: at})
	context.AfterFunc(lockCtx, func() {
		l.MarkLost(fmt.Errorf("%w: %s %q: the library canceled the lock's context: %v", lockimpl.ErrLost, name, key, context.Cause(lockCtx)))
	})
	return l, nil
}

// Release calls the lock's cancel function, which returns once the
// library has stopped extending and each key's monitor has ended: with a
// compare-and-delete of the key, or without one when the library had
// already found the key not holding its value. The cancel function
// reports nothing; the answer is what Redis told the library: ok when a
// majority of keys were deleted holding our value (the lock was ours
// until the release), not held when a majority were found not holding it
// (gone, or another's) or when the library had canceled the lock's
// context before the release (it said the lock was lost), unknown
// otherwise (a delete that timed out) or when the cancel function did not
// return within the request's timeout.
func (a *adapter) Release(ctx context.Context, l *lockimpl.Lease) error {
	v, ok := a.leases.LoadAndDelete(l)
	if !ok {
		return lockimpl.NotHeldError(name, "release (unknown lease)", l.Key)
	}
	h := v.(*held)
	if h.ctx.Err() != nil {
		go func() {
			h.release()
			h.stop()
			h.at.forget()
		}()
		return lockimpl.NotHeldError(name, "release (the library had canceled the lock's context: lost)", l.Key)
	}
	l.MarkLost(lockimpl.ErrReleased)
	h.at.releasing()
	done := make(chan struct{})
	go func() {
		h.release()
		h.stop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		go func() { <-done; h.at.forget() }()
		return lockimpl.UnknownError(name, "release", l.Key, fmt.Errorf("the lock's cancel function had not returned: %w", ctx.Err()))
	}
	deleted, notOurs := h.at.outcome()
	h.at.forget()
	switch {
	case deleted >= a.majority:
		return nil
	case notOurs >= a.majority:
		return lockimpl.NotHeldError(name, fmt.Sprintf("release (%d of %d keys no longer held our value)", notOurs, a.total), l.Key)
	}
	return lockimpl.UnknownError(name, "release", l.Key, fmt.Errorf("of %d keys, %d deleted holding our value, %d found without it, the rest unknown (a delete that failed)", a.total, deleted, notOurs))
}

// attemptKey is the context key of an Acquire's attempt: the library
// passes the context it was given down to every command of the lock
// (acquire and extend), which is how the observer finds the attempt.
type attemptKey struct{}

// attempt is what the observer saw of one Acquire's commands.
type attempt struct {
	drift    time.Duration
	majority int
	byValue  *sync.Map

	mu    sync.Mutex
	val   string               // the value of the latest try (each try draws its own)
	keys  map[string]time.Time // keys held with val: the validity Redis confirmed for each
	final map[string]int       // keys found without val (notOurs) or deleted holding it (deleted)
	lease *lockimpl.Lease      // once answered
	freed bool                 // its release has started
}

// What Redis last said of a key of the try, for its release.
const (
	notOurs = iota + 1 // an acquire, extend or delete found the key without our value
	deleted            // a delete removed the key holding our value
)

// sending notes an acquire command of value val: a new value is a new try.
func (at *attempt) sending(val string) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if val != at.val {
		if at.val != "" {
			at.byValue.Delete(at.val)
		}
		at.val = val
		at.byValue.Store(val, at)
		clear(at.keys)
		clear(at.final)
	}
}

// forget stops the observer from looking the attempt up by its value.
func (at *attempt) forget() {
	at.mu.Lock()
	defer at.mu.Unlock()
	if at.val != "" {
		at.byValue.CompareAndDelete(at.val, at)
	}
}

// releasing notes that the lease's release has started.
func (at *attempt) releasing() {
	at.mu.Lock()
	at.freed = true
	at.mu.Unlock()
}

// settled notes what a command of the try said of key: notOurs, deleted,
// or 0 (unknown: a command that failed). A delete before the release
// started is the library giving the key up (after a failed extend or
// acquire): for the release, that key was no longer ours.
func (at *attempt) settled(key, val string, what int) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if val != at.val {
		return
	}
	if what == deleted && !at.freed {
		what = notOurs
	}
	at.final[key] = what
}

// outcome counts the keys deleted holding our value and those found
// without it.
func (at *attempt) outcome() (del, not int) {
	at.mu.Lock()
	defer at.mu.Unlock()
	for _, w := range at.final {
		switch w {
		case deleted:
			del++
		case notOurs:
			not++
		}
	}
	return del, not
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
// attempt it reads each acquire, extend and delete command and its reply.
// Acquires and extends carry the attempt in their context; the library
// sends its deletes under context.Background, so they are found by value.
type observer struct {
	rueidis.Client
	byValue *sync.Map
}

const (
	cmdAcquire = iota + 1
	cmdExtend
	cmdDelete
)

func (o *observer) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	kind, key, val, deadline := parse(cmd.Commands()) // before Do: it recycles cmd
	if kind == 0 {
		return o.Client.Do(ctx, cmd)
	}
	if kind == cmdDelete {
		v, _ := o.byValue.Load(val)
		at, _ := v.(*attempt)
		resp := o.Client.Do(ctx, cmd)
		if at != nil {
			n, err := resp.AsInt64()
			switch {
			case err != nil:
				at.settled(key, val, 0)
			case n == 1:
				at.settled(key, val, deleted)
			default:
				at.settled(key, val, notOurs)
			}
		}
		return resp
	}
	at, _ := ctx.Value(attemptKey{}).(*attempt)
	if at == nil {
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
		err := resp.Error()
		at.confirmed(key, val, err == nil, valid)
		if rueidis.IsRedisNil(err) {
			at.settled(key, val, notOurs) // taken by another: the library sends no delete
		}
	case cmdExtend:
		n, err := resp.AsInt64()
		at.confirmed(key, val, err == nil && n == 1, valid)
		if err == nil && n != 1 {
			at.settled(key, val, notOurs) // no longer ours: the library sends no delete
		}
	}
	return resp
}

// parse recognises EVALSHA/EVAL of the acquire, extend and delete
// scripts: one key, then the value and a deadline in Unix milliseconds.
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
	case strings.EqualFold(args[0], "EVALSHA") && args[1] == shaDelete,
		strings.EqualFold(args[0], "EVAL") && args[1] == scriptDelete:
		kind = cmdDelete
	default:
		return 0, "", "", 0
	}
	d, err := strconv.ParseInt(args[5], 10, 64)
	if err != nil {
		return 0, "", "", 0
	}
	return kind, args[3], args[4], d
}
