package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// UnsafeDel is DELIBERATELY BROKEN: it acquires like Single but releases
// with a plain DEL, without checking the token. A holder whose lease
// expired (a pause, a slow critical section) deletes the next holder's
// key on release, and a third client then takes the lock while the second
// still holds it. Catalogue row 1.
type UnsafeDel struct{ node }

// NewUnsafeDel returns the broken plain-DEL lock on one node.
func NewUnsafeDel(c redis.UniversalClient, opt Options) *UnsafeDel {
	return &UnsafeDel{newNode(c, opt, nameUnsafeDel)}
}

// Acquire is Single's acquire.
func (u *UnsafeDel) Acquire(ctx context.Context, key string) (*Lease, error) {
	return u.acquireSetNX(ctx, key, u.opt.TTL)
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
