package lockimpl

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// UnsafeOverclaim is DELIBERATELY BROKEN: it acquires as Single does
// (SET NX PX TTL) but counts the lease's validity from the reply's
// arrival, a full TTL, however long the winning SET took and with no
// allowance for clock drift. The node's TTL started when the SET landed,
// so a slow reply (a delay on the node-to-client direction) moves the
// client's deadline past the key's expiry by the reply's delay: a holder
// that uses nearly its whole validity writes after another client took
// the lock. Real libraries have had this bug class (node-redlock counted
// a lock's expiry from its first attempt, #299). Catalogue and power row
// `overclaim`.
type UnsafeOverclaim struct{ node }

// NewUnsafeOverclaim returns the broken over-claiming lock on one node.
func NewUnsafeOverclaim(c redis.UniversalClient, opt Options) *UnsafeOverclaim {
	return &UnsafeOverclaim{newNode(c, opt, nameUnsafeOverclaim)}
}

// Acquire is Single's, then claims validity = now + TTL (the bug: a
// correct lock claims send + TTL - drift).
func (u *UnsafeOverclaim) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := u.node.Acquire(ctx, key)
	if err == nil {
		l.SetValidity(time.Now().Add(u.opt.TTL))
	}
	return l, err
}
