package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// FairNaive is the seed design's FIFO lock, kept so the harness can show
// it starve: waiters queue in a sorted set by arrival and the head takes
// the lock when free, but nothing ever drops a waiter that died. A waiter
// that crashes at the head (so never leaves) blocks everyone behind it
// forever. Waiters that give up normally do leave the queue. The lock is a
// plain token key with a TTL, released like Single's.
type FairNaive struct{ node }

// NewFairNaive returns the starving FIFO lock on one node.
func NewFairNaive(c redis.UniversalClient, opt Options) *FairNaive {
	return &FairNaive{newNode(c, opt, nameFairNaive)}
}

// Acquire joins the queue and polls until the caller is the head and the
// lock is free, or ctx ends.
func (f *FairNaive) Acquire(ctx context.Context, key string) (*Lease, error) {
	keys := []string{key, queueKey(key), arrivalKey(key)}
	return f.fairLoop(ctx, key,
		func(ctx context.Context, token string) (bool, error) {
			return runFairStep(ctx, fairNaiveAcquireScript, f.c, keys, token, ms(f.opt.TTL))
		},
		func(ctx context.Context, token string) error {
			return fairLeaveScript.Run(ctx, f.c, []string{queueKey(key)}, token).Err()
		})
}
