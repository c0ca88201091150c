package lockimpl

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// forever is the validity of a lease that never expires.
const forever = 100 * 365 * 24 * time.Hour

// UnsafeNoTTL is DELIBERATELY BROKEN: it acquires with SET NX and no
// expiry. It is safe while every holder releases, but a holder that
// crashes leaves the key forever and nobody can take the lock again.
// Catalogue row 3. Its lease reports TTL 0 and a validity a century away.
//
// Its Release (the token-checked delete of every single-node lock) is
// right.
type UnsafeNoTTL struct{ node }

// NewUnsafeNoTTL returns the broken lock-without-expiry on one node.
func NewUnsafeNoTTL(c redis.UniversalClient, opt Options) *UnsafeNoTTL {
	return &UnsafeNoTTL{newNode(c, opt, nameUnsafeNoTTL)}
}

// Acquire sets the key with no TTL.
func (u *UnsafeNoTTL) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := u.acquireSetNX(ctx, key, 0)
	if err != nil {
		return nil, err
	}
	l.TTL = 0
	l.SetValidity(time.Now().Add(forever))
	return l, nil
}
