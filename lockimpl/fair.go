package lockimpl

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Queue key names, derived from the lock key.
func queueKey(key string) string     { return key + ":queue" }
func heartbeatKey(key string) string { return key + ":hb" }
func arrivalKey(key string) string   { return key + ":seq" }

// Fair is a FIFO lock on one node. Waiters join a queue (a sorted set
// ordered by arrival number) and only the head may take the lock once it
// is free. Every step (prune, join, heartbeat, take) is one Lua script.
//
// A waiter proves it is alive by polling: each poll refreshes its
// heartbeat, stamped with the server's clock (redis.call('TIME'), allowed
// because Redis 7 replicates script effects, not scripts). Any poll drops
// waiters whose heartbeat is older than WaiterTimeout, so a waiter that
// crashed at the head holds the queue up for at most WaiterTimeout after
// its last poll. Waiters poll with jittered exponential backoff between
// RetryMin and RetryMax (no busy-poll storm); WaiterTimeout must be well
// above RetryMax + NodeTimeout (the default is max(TTL, 5*RetryMax)).
//
// The lock itself is a plain token key with a TTL, released and extended
// like Single's: the next waiter takes it on its next poll. The queue,
// heartbeat and arrival keys append ":queue", ":hb" and ":seq" to the lock
// key; on a Redis Cluster a hash-tagged lock key ("lock:{name}") keeps
// all four in one slot (CheckSlots).
type Fair struct{ extendable }

// NewFair returns a FIFO lock on one node.
func NewFair(c redis.UniversalClient, opt Options) *Fair {
	return &Fair{extendable{newNode(c, opt, nameFair)}}
}

// Acquire joins the queue and polls until the caller reaches the head and
// takes the lock, or ctx ends (then it leaves the queue).
func (f *Fair) Acquire(ctx context.Context, key string) (*Lease, error) {
	keys := []string{key, queueKey(key), heartbeatKey(key), arrivalKey(key)}
	return f.fairLoop(ctx, key,
		func(ctx context.Context, token string) (bool, error) {
			return runFairStep(ctx, fairAcquireScript, f.c, keys, token, ms(f.opt.TTL), max(f.opt.WaiterTimeout.Milliseconds(), 1))
		},
		func(ctx context.Context, token string) error {
			return fairLeaveScript.Run(ctx, f.c, []string{queueKey(key), heartbeatKey(key)}, token).Err()
		})
}

// runFairStep runs one queue step and reports whether the caller holds the lock.
func runFairStep(ctx context.Context, s *redis.Script, c redis.UniversalClient, keys []string, args ...any) (bool, error) {
	v, err := s.Run(ctx, c, keys, args...).Int64Slice()
	if err != nil {
		return false, err
	}
	if len(v) != 2 {
		return false, fmt.Errorf("lockimpl: fair: unexpected reply %v", v)
	}
	return v[0] == 1, nil
}

// fairLoop is the waiting loop shared by fair and fair-naive. Unlike
// acquireLoop the backoff does not grow past RetryMax and the queue entry
// must be removed when the caller gives up.
func (n *node) fairLoop(ctx context.Context, key string,
	step func(ctx context.Context, token string) (bool, error),
	leave func(ctx context.Context, token string) error) (*Lease, error) {
	o, lock, c := &n.opt, n.name, n.c
	token := NewToken()
	giveUp := func(cause error, known bool) (*Lease, error) {
		cctx, cancel := cleanupCtx(ctx, o.NodeTimeout)
		defer cancel()
		lerr := leave(cctx, token)
		if !known {
			_, _ = releaseOne(cctx, c, key, token)
			return nil, UnknownError(lock, "acquire", key, cause)
		}
		if lerr != nil {
			// Still queued (it will be pruned, or block fair-naive); the lock
			// itself is certainly not ours.
			cause = fmt.Errorf("%w (leaving the queue failed: %v)", cause, lerr)
		}
		return nil, NotObtainedError(lock, key, cause)
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return giveUp(err, true)
		}
		if !timeForAttempt(ctx, o.NodeTimeout) {
			return giveUp(context.DeadlineExceeded, true)
		}
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, o.NodeTimeout)
		ok, err := step(actx, token)
		cancel()
		if isCrossSlot(err) {
			return nil, crossSlotError(lock, "acquire", key, err)
		}
		if err != nil && !NotSent(err) && !Refused(err) {
			return giveUp(err, false)
		}
		if ok {
			valid := o.validUntil(start)
			if time.Now().Before(valid) {
				return newLease(key, token, 0, o.TTL, valid, []string{o.NodeNames[0]}), nil
			}
			return giveUp(fmt.Errorf("granted after its validity"), false)
		}
		if !sleep(ctx, o.Backoff(i)) {
			return giveUp(ctx.Err(), true)
		}
	}
}
