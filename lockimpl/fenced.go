package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// Fenced is the single-instance lock with a fencing token: one Lua script
// takes the lock and increments the lock's counter (key + ":fence", never
// expiring) atomically, so a grant always carries its token and tokens
// strictly increase per lock name for as long as the node keeps the
// counter (a node restarted without persistence starts again from 0).
// A protected resource that rejects tokens lower than the highest it has
// seen turns a holder that outlived its lease into a rejected write.
//
// Release and Extend are Single's: the counter stays, a lease keeps its
// fence. On a Redis Cluster the lock key needs a hash tag ("lock:{name}")
// so that the counter, which only appends a suffix, lies in its slot
// (CheckSlots).
type Fenced struct{ extendable }

// NewFenced returns a fenced single-instance lock on one node.
func NewFenced(c redis.UniversalClient, opt Options) *Fenced {
	return &Fenced{extendable{newNode(c, opt, nameFenced)}}
}

// Acquire takes the lock with its fencing token (Lease.Fence > 0).
func (f *Fenced) Acquire(ctx context.Context, key string) (*Lease, error) {
	return f.acquire(ctx, key, func(ctx context.Context, token string) (bool, int64, error) {
		fence, err := fencedAcquireScript.Run(ctx, f.c, []string{key, fenceKey(key)}, token, ms(f.opt.TTL)).Int64()
		if err != nil {
			return false, 0, err
		}
		if fence < 0 {
			return false, 0, errors.New("lockimpl: fenced: negative fencing counter")
		}
		return fence > 0, fence, nil
	})
}
