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
	return releaseSingle(ctx, &n.opt, n.c, n.name, l)
}

// extend resets the key's TTL if it still holds the lease's token; the
// locks that offer Extend call it.
func (n *node) extend(ctx context.Context, l *Lease) error {
	return extendSingle(ctx, &n.opt, n.c, n.name, l)
}
