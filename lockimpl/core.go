package lockimpl

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// AttemptFunc is one acquire attempt on a single node, run under its own
// deadline. It reports whether the lock was taken (with its fencing token,
// 0 when the lock has none), false when it is certainly held by someone
// else, or an error (outcome unknown unless NotSent(err)).
type AttemptFunc func(ctx context.Context, token string) (ok bool, fence int64, err error)

// CleanupFunc undoes, best effort, whatever an attempt with an unknown
// outcome may have done (release by token, leave a queue). It reports
// whether it certainly left nothing held.
type CleanupFunc func(ctx context.Context, token string) bool

// AcquireLoop runs attempts on one node (named node in the lease) with
// jittered backoff (o.Backoff) until one takes the lock or ctx ends; lock
// names the lock in errors. The validity of a grant is measured from before its attempt
// was sent. An attempt whose outcome is unknown ends the loop: the lock
// cleans up and returns an ErrOutcomeUnknown error (never ErrNotObtained),
// because the caller may have held the lock for a while. An attempt that
// certainly did not run (NotSent, Refused) is retried like a refusal; a
// CROSSSLOT refusal ends the loop with an error wrapping ErrCrossSlot,
// since no later attempt can succeed.
func AcquireLoop(ctx context.Context, o *Options, lock, node, key string, try AttemptFunc, cleanup CleanupFunc) (*Lease, error) {
	token := NewToken()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, NotObtainedError(lock, key, err)
		}
		if !timeForAttempt(ctx, o.NodeTimeout) {
			return nil, NotObtainedError(lock, key, context.DeadlineExceeded)
		}
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, o.NodeTimeout)
		ok, fence, err := try(actx, token)
		cancel()
		switch {
		case isCrossSlot(err):
			return nil, crossSlotError(lock, "acquire", key, err)
		case err != nil && !NotSent(err) && !Refused(err):
			cctx, ccancel := cleanupCtx(ctx, o.NodeTimeout)
			cleanup(cctx, token)
			ccancel()
			return nil, UnknownError(lock, "acquire", key, err)
		case err == nil && ok:
			valid := o.validUntil(start)
			if time.Now().Before(valid) {
				return newLease(key, token, fence, o.TTL, valid, []string{node}), nil
			}
			// Granted too late to be of use: give it back and try again.
			cctx, ccancel := cleanupCtx(ctx, o.NodeTimeout)
			clean := cleanup(cctx, token)
			ccancel()
			if !clean {
				return nil, UnknownError(lock, "acquire", key, errors.New("granted after its validity and release failed"))
			}
		}
		if !sleep(ctx, o.Backoff(i)) {
			return nil, NotObtainedError(lock, key, ctx.Err())
		}
	}
}

// minAttempt is the least time an attempt needs before the caller's
// deadline: a command sent with less would most likely time out after
// leaving, making the outcome unknown, where not sending it is a certain
// failure.
const minAttempt = 5 * time.Millisecond

// timeForAttempt reports whether ctx leaves enough time for one attempt:
// at least min(minAttempt, nodeTimeout/2).
func timeForAttempt(ctx context.Context, nodeTimeout time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= min(minAttempt, nodeTimeout/2)
}

// newLease is NewLease with the granting nodes.
func newLease(key, token string, fence int64, ttl time.Duration, valid time.Time, nodes []string) *Lease {
	l := NewLease(key, token, fence, ttl, valid)
	l.Nodes = nodes
	return l
}

// setNX is one SET key token NX PX ttl GET round trip (Redis >= 7.0). It
// reports true when the key now holds token (set now, or already ours
// from a resent command), false when another token holds it.
func setNX(ctx context.Context, c redis.UniversalClient, key, token string, ttl time.Duration) (bool, error) {
	old, err := c.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl, Get: true}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return true, nil
	case err != nil:
		return false, err
	}
	return old == token, nil
}

// releaseOne runs the compare-and-delete script on one node: 1 released,
// 0 not held.
func releaseOne(ctx context.Context, c redis.UniversalClient, key, token string) (int64, error) {
	return releaseScript.Run(ctx, c, []string{key}, token).Int64()
}

// extendOne runs the compare-and-expire script on one node.
func extendOne(ctx context.Context, c redis.UniversalClient, key, token string, ttl time.Duration) (int64, error) {
	return extendScript.Run(ctx, c, []string{key}, token, ms(ttl)).Int64()
}

// ms formats a duration as whole milliseconds (at least 1) for PX.
func ms(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}

// ReleaseCleanup is the cleanup of a lock held under one key: release by
// token. Clean when the node answered (whatever it answered).
func ReleaseCleanup(c redis.UniversalClient, key string) CleanupFunc {
	return func(ctx context.Context, token string) bool {
		_, err := releaseOne(ctx, c, key, token)
		return err == nil
	}
}
