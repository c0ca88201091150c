package lockimpl

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
)

// NewToken returns 16 random bytes from crypto/rand, hex encoded: the
// value a lock stores under its key to tell its own lease from others'.
func NewToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Backoff is the delay before retry number i (0 = after the first
// attempt): exponential from RetryMin, capped at RetryMax, drawn uniformly
// from the upper half (from o.Jitter) so concurrent clients do not retry
// in lock step. Options filled by WithDefaults always have a Jitter; on
// others a fresh source seeded from crypto/rand is used.
func (o *Options) Backoff(i int) time.Duration {
	d := o.RetryMin
	for ; i > 0 && d < o.RetryMax; i-- {
		d *= 2
	}
	d = min(d, o.RetryMax)
	half := d / 2
	if half <= 0 {
		return d
	}
	j := o.Jitter
	if j == nil {
		j = newRandomJitter()
	}
	return half + j.N(d-half)
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool { return ctxtime.Sleep(ctx, d, nil) }

// NotSent reports whether err certainly means the command never reached
// the server: the connection could not be dialled or taken from the pool.
// Any other error after sending (a timeout, a reset) leaves the outcome
// unknown.
func NotSent(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, errQueued) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted) || errors.Is(err, redis.ErrClosed)
}

// cleanupCtx is a context for a best-effort cleanup after ctx may have
// ended: it keeps ctx's values, not its cancellation, and lasts d.
func cleanupCtx(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// WalkErrors calls f on err and on every error it wraps, joined errors
// included, depth first: a multi-node lock's error holds one per node.
func WalkErrors(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			WalkErrors(e, f)
		}
	case interface{ Unwrap() error }:
		WalkErrors(u.Unwrap(), f)
	}
}
