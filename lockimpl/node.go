package lockimpl

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// node is what every single-node lock is built on: its client, its
// options (filled for one node) and its registry name, with the acquire
// loop and the token-checked release every such lock shares. Each lock
// adds what sets it apart (its attempt, a different release, Extend).
type node struct {
	c    redis.UniversalClient
	opt  Options
	name string
}

// newNode fills opt for one node.
func newNode(c redis.UniversalClient, opt Options, name string) node {
	return node{c: c, opt: opt.WithDefaults(1), name: name}
}

// acquire runs AcquireLoop with try on the node, cleaning up an unknown
// attempt by releasing the key by token.
func (n *node) acquire(ctx context.Context, key string, try AttemptFunc) (*Lease, error) {
	return AcquireLoop(ctx, &n.opt, n.name, n.opt.NodeNames[0], key, try, ReleaseCleanup(n.c, key))
}

// Acquire is Single's acquire: SET key token NX PX TTL, retried with
// jittered backoff until the lock is taken or ctx ends.
func (n *node) Acquire(ctx context.Context, key string) (*Lease, error) {
	return n.acquireSetNX(ctx, key, n.opt.TTL)
}

// acquireSetNX is Single's acquire: one SET key token NX PX ttl per
// attempt (ttl 0: no expiry).
func (n *node) acquireSetNX(ctx context.Context, key string, ttl time.Duration) (*Lease, error) {
	return n.acquire(ctx, key, func(ctx context.Context, token string) (bool, int64, error) {
		ok, err := setNX(ctx, n.c, key, token, ttl)
		return ok, 0, err
	})
}

// Release deletes the key if it still holds the lease's token (one
// compare-and-delete round trip); the lease's Done closes either way.
func (n *node) Release(ctx context.Context, l *Lease) error {
	ctx, cancel := context.WithTimeout(ctx, n.opt.NodeTimeout)
	defer cancel()
	deleted, err := releaseOne(ctx, n.c, l.Key, l.Token)
	switch {
	case err != nil:
		l.MarkLost(ErrReleased)
		return UnknownError(n.name, "release", l.Key, err)
	case deleted == 0:
		l.MarkLost(ErrNotHeld)
		return NotHeldError(n.name, "release", l.Key)
	}
	l.MarkLost(ErrReleased)
	return nil
}

// extendable is a node whose lease can be extended: the single-node locks
// that offer Extend embed it, the others embed node.
type extendable struct{ node }

// Extend resets the key's TTL if it still holds the lease's token; the
// validity moves to the command's send time + TTL - drift.
func (e *extendable) Extend(ctx context.Context, l *Lease) error {
	return e.extendWithin(ctx, l, "extend", e.opt.NodeTimeout)
}

// extendWithin is one compare-and-expire round trip under timeout (op
// names it in errors) that moves the lease's validity on success.
func (n *node) extendWithin(ctx context.Context, l *Lease, op string, timeout time.Duration) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	extended, err := extendOne(ctx, n.c, l.Key, l.Token, n.opt.TTL)
	switch {
	case err != nil:
		return UnknownError(n.name, op, l.Key, err)
	case extended == 0:
		return NotHeldError(n.name, op, l.Key)
	}
	valid := n.opt.validUntil(start)
	if !time.Now().Before(valid) {
		return NotHeldError(n.name, op+" (validity elapsed)", l.Key)
	}
	l.SetValidity(valid)
	return nil
}
