package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// The two deliberately broken releases (catalogue rows 1 and 2). Both
// locks acquire as Single does; only their Release differs from it.

// UnsafeDel is DELIBERATELY BROKEN: it acquires as Single does but releases
// with a plain DEL, without checking the token. A holder whose lease
// expired (a pause, a slow critical section) deletes the next holder's
// key on release, and a third client then takes the lock while the second
// still holds it. Catalogue row 1.
type UnsafeDel struct{ node }

// NewUnsafeDel returns the broken plain-DEL lock on one node.
func NewUnsafeDel(c redis.UniversalClient, opt Options) *UnsafeDel {
	return &UnsafeDel{newNode(c, opt, nameUnsafeDel)}
}

// Release deletes the key whoever holds it (the bug). It reports ErrNotHeld
// only when the key was absent.
func (u *UnsafeDel) Release(ctx context.Context, l *Lease) error {
	ctx, cancel := context.WithTimeout(ctx, u.opt.NodeTimeout)
	defer cancel()
	n, err := u.c.Del(ctx, l.Key).Result()
	l.MarkLost(ErrReleased)
	switch {
	case err != nil:
		return UnknownError(nameUnsafeDel, "release", l.Key, err)
	case n == 0:
		return NotHeldError(nameUnsafeDel, "release", l.Key)
	}
	return nil
}

// UnsafeGetDel is DELIBERATELY BROKEN: it releases with GET, a comparison
// in the client, then DEL: two round trips, not atomic. If the lease
// expires and another client takes the lock between the GET and the DEL
// (latency, a pause), the DEL removes the other client's key. Catalogue
// row 2. It acquires as Single does.
type UnsafeGetDel struct{ node }

// NewUnsafeGetDel returns the broken GET-then-DEL lock on one node.
func NewUnsafeGetDel(c redis.UniversalClient, opt Options) *UnsafeGetDel {
	return &UnsafeGetDel{newNode(c, opt, nameUnsafeGetDel)}
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
