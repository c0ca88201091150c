package lockimpl

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// UnsafeNoTTL is DELIBERATELY BROKEN: it acquires with SET NX and no
// expiry. It is safe while every holder releases, but a holder that
// crashes leaves the key forever and nobody can take the lock again.
// Catalogue row 3. Its lease reports TTL 0 and a validity a century away.
type UnsafeNoTTL struct {
	c   redis.UniversalClient
	opt Options
}

// NewUnsafeNoTTL returns the broken lock-without-expiry on one node.
func NewUnsafeNoTTL(c redis.UniversalClient, opt Options) *UnsafeNoTTL {
	return &UnsafeNoTTL{c: c, opt: opt.WithDefaults(1)}
}

// forever is the validity of a lease that never expires.
const forever = 100 * 365 * 24 * time.Hour

// Acquire sets the key with no TTL.
func (u *UnsafeNoTTL) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := AcquireLoop(ctx, &u.opt, nameUnsafeNoTTL, u.opt.NodeNames[0], key,
		func(ctx context.Context, token string) (bool, int64, error) {
			ok, err := setNX(ctx, u.c, key, token, 0)
			return ok, 0, err
		},
		ReleaseCleanup(u.c, key))
	if err != nil {
		return nil, err
	}
	l.TTL = 0
	l.SetValidity(time.Now().Add(forever))
	return l, nil
}

// Release deletes the key if it still holds the token (that part is right).
func (u *UnsafeNoTTL) Release(ctx context.Context, l *Lease) error {
	return releaseSingle(ctx, &u.opt, u.c, nameUnsafeNoTTL, l)
}
