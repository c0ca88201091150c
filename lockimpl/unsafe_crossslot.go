package lockimpl

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"
)

// UnsafeCrossSlot is DELIBERATELY BROKEN for a Redis Cluster: it is the
// fenced lock with its fencing counter under "fence_counter:" + the lock
// key with its braces removed (for "lock:{t1}", "fence_counter:lock:t1"),
// a key that does not share the lock key's hash tag and so lies in
// another hash slot. On a standalone node it is a correct fenced lock
// (same script, same guarantees as Fenced). On a cluster its acquire
// script names keys in two slots and the server refuses it with
// CROSSSLOT: Acquire returns an error wrapping ErrCrossSlot. Its Keys
// reveal the layout, so CheckSlots refuses it before a cluster run.
//
// Release and Extend are Single's (they touch the lock key only).
type UnsafeCrossSlot struct{ extendable }

// NewUnsafeCrossSlot returns the fenced lock whose counter is in another
// hash slot, on one node (or one cluster client).
func NewUnsafeCrossSlot(c redis.UniversalClient, opt Options) *UnsafeCrossSlot {
	return &UnsafeCrossSlot{extendable{newNode(c, opt, nameUnsafeCrossSlot)}}
}

// crossSlotFenceKey is UnsafeCrossSlot's fencing counter: the lock key
// without its hash tag's braces, so the counter hashes on its whole name.
func crossSlotFenceKey(key string) string {
	return "fence_counter:" + strings.NewReplacer("{", "", "}", "").Replace(key)
}

// Acquire takes the lock with its fencing token, as Fenced does but with
// the counter in another slot.
func (u *UnsafeCrossSlot) Acquire(ctx context.Context, key string) (*Lease, error) {
	return u.acquire(ctx, key, func(ctx context.Context, token string) (bool, int64, error) {
		fence, err := fencedAcquireScript.Run(ctx, u.c, []string{key, crossSlotFenceKey(key)}, token, ms(u.opt.TTL)).Int64()
		if err != nil {
			return false, 0, err
		}
		if fence < 0 {
			return false, 0, errors.New("lockimpl: unsafe-crossslot: negative fencing counter")
		}
		return fence > 0, fence, nil
	})
}
