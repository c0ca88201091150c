package lockimpl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// SingleWait is Single with WAIT 1 after each acquire, the seed FAQ's
// advice for a lock on a replicated master: the SET NX PX and a WAIT 1
// travel in one pipeline on one connection of the key's master, and an
// attempt counts only when a replica acknowledged the SET within a quarter
// of a node timeout (the rest is the round trip's). An attempt that no
// replica acknowledged deletes its key (compare-and-delete) and retries: a lock that exists on the master alone
// is one failover away from being lost. WAIT shortens the time in which
// a failover can lose a granted lock, but not to nothing (a replica may
// acknowledge and still lose the race to be promoted, and a partitioned
// master keeps granting until it notices). Release and Extend are
// Single's.
type SingleWait struct{ extendable }

// NewSingleWait returns Single with WAIT 1 on one node (a standalone
// master with a replica, or a Redis Cluster through one cluster client).
// Its node timeout is at least minWaitNodeTimeout, so that a WAIT that
// no replica answers can time out within an attempt.
func NewSingleWait(c redis.UniversalClient, opt Options) *SingleWait {
	n := newNode(c, opt, nameSingleWait)
	n.opt.NodeTimeout = max(n.opt.NodeTimeout, minWaitNodeTimeout)
	return &SingleWait{extendable{n}}
}

// minWaitNodeTimeout is single-wait's shortest node timeout: a quarter of
// it for WAIT, plus waitTick.
const minWaitNodeTimeout = 200 * time.Millisecond

// waitReplicas is how many replicas must acknowledge an acquire's SET.
const waitReplicas = 1

// waitTick is how late a WAIT may answer past its timeout: the server
// checks blocked clients once per tick (hz 10 by default: 100 ms) plus a
// round trip.
const waitTick = 110 * time.Millisecond

// errUnreplicated: no replica acknowledged the SET in time.
var errUnreplicated = errors.New("no replica acknowledged the SET (WAIT 1)")

// Acquire is SET key token NX PX TTL then WAIT 1, retried until a
// replica acknowledged the lock or ctx ends.
func (s *SingleWait) Acquire(ctx context.Context, key string) (*Lease, error) {
	return s.acquire(ctx, key, func(ctx context.Context, token string) (bool, int64, error) {
		return setNXWait(ctx, s.c, key, token, s.opt.TTL, s.opt.NodeTimeout/4)
	})
}

// Keys is the lock key alone.
func (s *SingleWait) Keys(key string) []string { return []string{key} }

// setNXWait pipelines SET NX PX and WAIT on one connection of the key's
// node, so WAIT counts the replicas that have that SET. Taken but not
// replicated: the key is deleted again and the attempt reports not taken.
func setNXWait(ctx context.Context, c redis.UniversalClient, key, token string, ttl, wait time.Duration) (bool, int64, error) {
	wait = max(wait, time.Millisecond)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+waitTick {
		// Too little time left for a WAIT to answer: an attempt now would
		// end unknown, so none is made (the loop ends not obtained).
		return false, 0, nil
	}
	nc, err := nodeOf(ctx, c, key)
	if err != nil {
		return false, 0, err
	}
	var set *redis.StatusCmd
	var acks *redis.Cmd
	_, perr := nc.Pipelined(ctx, func(p redis.Pipeliner) error {
		set = p.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl, Get: true})
		acks = p.Do(ctx, "WAIT", waitReplicas, wait.Milliseconds())
		return nil
	})
	old, err := set.Result()
	taken := errors.Is(err, redis.Nil) || (err == nil && old == token)
	switch {
	case err != nil && !errors.Is(err, redis.Nil):
		if cc, ok := c.(*redis.ClusterClient); ok && Refused(err) {
			// The slot moved (MOVED from a node we addressed directly):
			// the next attempt must use a fresh slot map.
			cc.ReloadState(ctx)
		}
		return false, 0, err
	case !taken:
		return false, 0, nil
	case perr != nil && !errors.Is(perr, redis.Nil):
		return false, 0, perr // taken, WAIT's answer unknown: the loop cleans up
	}
	if n, err := acks.Int64(); err == nil && n >= waitReplicas {
		return true, 0, nil
	}
	if _, err := releaseOne(ctx, c, key, token); err != nil {
		return false, 0, fmt.Errorf("%w; deleting the unreplicated key: %w", errUnreplicated, err)
	}
	return false, 0, nil
}

// nodeOf is the client of the node that holds key: on a Redis Cluster the
// master of its slot (so SET and WAIT share a connection), else c.
func nodeOf(ctx context.Context, c redis.UniversalClient, key string) (redis.Cmdable, error) {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.MasterForKey(ctx, key)
	}
	return c, nil
}
