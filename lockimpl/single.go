package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Single is the single-instance lock: SET key token NX PX ttl to acquire
// (one round trip per attempt), a compare-token-then-DEL script to release
// and a compare-token-then-PEXPIRE script to extend. Attempts repeat with
// jittered backoff until the context ends. Its lease's validity is
// attemptStart + TTL - drift; nothing renews it, so a holder that runs
// past its validity is no longer protected (use fencing or Renewable).
// Commands from concurrent callers of one Single share pipelines (see
// pipe), which changes nothing for one caller and saves syscalls for many.
type Single struct {
	c    redis.UniversalClient
	p    *pipe
	opt  Options
	name string
}

// NewSingle returns a single-instance lock on one node.
func NewSingle(c redis.UniversalClient, opt Options) *Single {
	return &Single{c: c, p: newPipe(c), opt: opt.withDefaults(1), name: nameSingle}
}

// Acquire takes the lock or returns ErrNotObtained when ctx ends first.
func (s *Single) Acquire(ctx context.Context, key string) (*Lease, error) {
	return acquireLoop(ctx, &s.opt, s.name, s.opt.NodeNames[0], key,
		func(ctx context.Context, token string) (bool, int64, error) {
			ok, err := s.p.setNX(ctx, key, token, s.opt.TTL)
			return ok, 0, err
		},
		releaseCleanup(s.c, key))
}

// Release deletes the key if it still holds the lease's token.
func (s *Single) Release(ctx context.Context, l *Lease) error {
	return releaseWith(ctx, &s.opt, s.name, l, func(ctx context.Context) (int64, error) {
		return s.p.evalInt(ctx, releaseScript, releaseSrc, []string{l.Key}, l.Token)
	})
}

// Extend resets the TTL if the key still holds the lease's token.
func (s *Single) Extend(ctx context.Context, l *Lease) error {
	return extendWith(ctx, &s.opt, s.name, l, func(ctx context.Context) (int64, error) {
		return s.p.evalInt(ctx, extendScript, extendSrc, []string{l.Key}, l.Token, ms(s.opt.TTL))
	})
}
