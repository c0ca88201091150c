package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// UnsafeGetDel is DELIBERATELY BROKEN: it releases with GET, a comparison
// in the client, then DEL: two round trips, not atomic. If the lease
// expires and another client takes the lock between the GET and the DEL
// (latency, a pause), the DEL removes the other client's key. Catalogue
// row 2.
type UnsafeGetDel struct{ node }

// NewUnsafeGetDel returns the broken GET-then-DEL lock on one node.
func NewUnsafeGetDel(c redis.UniversalClient, opt Options) *UnsafeGetDel {
	return &UnsafeGetDel{newNode(c, opt, nameUnsafeGetDel)}
}

// Acquire is Single's acquire.
func (u *UnsafeGetDel) Acquire(ctx context.Context, key string) (*Lease, error) {
	return u.acquireSetNX(ctx, key, u.opt.TTL)
}

// Release reads the key, compares it with the token, then deletes it (the
// bug: the key may change hands in between). Each command has its own
// NodeTimeout.
func (u *UnsafeGetDel) Release(ctx context.Context, l *Lease) error {
	l.MarkLost(ErrReleased)
	gctx, cancel := context.WithTimeout(ctx, u.opt.NodeTimeout)
	v, err := u.c.Get(gctx, l.Key).Result()
	cancel()
	switch {
	case errors.Is(err, redis.Nil):
		return NotHeldError(nameUnsafeGetDel, "release", l.Key)
	case err != nil:
		return UnknownError(nameUnsafeGetDel, "release", l.Key, err)
	case v != l.Token:
		return NotHeldError(nameUnsafeGetDel, "release", l.Key)
	}
	dctx, cancel := context.WithTimeout(ctx, u.opt.NodeTimeout)
	defer cancel()
	if err := u.c.Del(dctx, l.Key).Err(); err != nil {
		return UnknownError(nameUnsafeGetDel, "release", l.Key, err)
	}
	return nil
}
