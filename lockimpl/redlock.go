package lockimpl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redlock is the multi-node lock of the Redis documentation, done right:
// SET NX PX is sent to all N independent nodes in parallel, each with its
// own timeout (NodeTimeout, small against the TTL), and the lock is held
// once a quorum (N/2+1) granted it and the validity, attemptStart + TTL -
// (TTL*DriftFactor + 2ms), is still ahead. Acquire returns as soon as the
// quorum answered, so it costs about one round trip, not N. A failed
// attempt releases on every node that may hold the token and retries after
// a randomised delay. Extend needs a quorum and re-checks the validity;
// Release runs on all nodes.
//
// Safety rests on Redlock's assumptions: bounded clock drift and pauses,
// and nodes that do not forget keys (a node restarted without persistence
// within a TTL, or whose clock jumps, can grant the lock twice).
type Redlock struct {
	nodes  []redis.UniversalClient
	pipes  []*pipe // one per node: concurrent callers' commands share pipelines
	opt    Options
	quorum int
	name   string
	fenced bool
}

// NewRedlock returns a Redlock over the given nodes (one client each).
func NewRedlock(nodes []redis.UniversalClient, opt Options) (*Redlock, error) {
	return newRedlock(nodes, opt, nameRedlock, false)
}

func newRedlock(nodes []redis.UniversalClient, opt Options, name string, fenced bool) (*Redlock, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one node", ErrNoClients, name)
	}
	pipes := make([]*pipe, len(nodes))
	for i, c := range nodes {
		pipes[i] = newPipe(c)
	}
	return &Redlock{nodes: nodes, pipes: pipes, opt: opt.WithDefaults(len(nodes)), quorum: len(nodes)/2 + 1, name: name, fenced: fenced}, nil
}

// Quorum is the number of nodes that must agree: N/2+1.
func (r *Redlock) Quorum() int { return r.quorum }

// nodeState is what an attempt learned about one node.
type nodeState uint8

const (
	statePending nodeState = iota // no answer yet
	stateOK                       // granted (key holds our token)
	stateNo                       // certainly not ours: taken, or never sent
	stateUnknown                  // error after sending: may be ours
)

// stateOf is what a node's answer to an acquire attempt says: granted
// (a positive value), certainly not ours (a zero, or a command never
// sent), or unknown (an error after sending).
func stateOf(res nodeResult) nodeState {
	switch {
	case res.err == nil && res.val > 0:
		return stateOK
	case res.err == nil || NotSent(res.err):
		return stateNo
	}
	return stateUnknown
}

// Acquire takes the lock on a quorum or returns ErrNotObtained when ctx
// ends first. An attempt whose failure cannot be proven (too many nodes
// with unknown outcomes after cleanup) returns ErrOutcomeUnknown.
func (r *Redlock) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := NewToken()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, NotObtainedError(r.name, key, err)
		}
		l, err := r.attempt(ctx, key, token)
		if l != nil || err != nil {
			return l, err
		}
		if !sleep(ctx, r.opt.Backoff(i)) {
			return nil, NotObtainedError(r.name, key, ctx.Err())
		}
	}
}

// attempt is one acquire round. It returns a lease, or an unknown-outcome
// error, or (nil, nil) when the lock is certainly not held and the caller
// may retry.
func (r *Redlock) attempt(ctx context.Context, key, token string) (*Lease, error) {
	n := len(r.nodes)
	start := time.Now()
	ch := fanout(ctx, n, r.opt.NodeTimeout, func(ctx context.Context, i int) (int64, error) {
		if r.fenced {
			return r.pipes[i].evalInt(ctx, fencedAcquireScript, fencedAcquireSrc, []string{key, fenceKey(key)}, token, ms(r.opt.TTL))
		}
		ok, err := r.pipes[i].setNX(ctx, key, token, r.opt.TTL)
		if ok {
			return 1, err
		}
		return 0, err
	})
	states := make([]nodeState, n)
	fences := make([]int64, n)
	var okN, noN, answered int
	var lastErr error
	for answered < n {
		res := <-ch
		answered++
		states[res.node] = stateOf(res)
		switch states[res.node] {
		case stateOK:
			fences[res.node] = res.val
			okN++
		case stateNo:
			noN++
			lastErr = cmp(res.err, lastErr)
		default:
			lastErr = res.err
		}
		if okN >= r.quorum {
			break
		}
		if noN > n-r.quorum {
			break // no quorum possible: certain failure
		}
	}
	if okN >= r.quorum {
		l, err := r.grant(ctx, key, token, start, states, fences)
		if l != nil || err != nil {
			return l, err
		}
		lastErr = errors.New("validity elapsed before the quorum answered")
	}
	// Failure: wait for the stragglers, then release wherever the token
	// may be, and decide whether the failure is certain.
	for ; answered < n; answered++ {
		res := <-ch
		states[res.node] = stateOf(res)
	}
	if maybe := r.releaseAll(ctx, key, token, states); maybe >= r.quorum {
		return nil, UnknownError(r.name, "acquire", key, fmt.Errorf("%d of %d nodes may hold the token: %w", maybe, n, lastErr))
	}
	return nil, nil
}

// cmp keeps a non-nil error.
func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// grant finishes a successful quorum: checks the validity and, for the
// fenced variant, ratchets the counters. (nil, nil) means the grant came
// too late and must be undone.
func (r *Redlock) grant(ctx context.Context, key, token string, start time.Time, states []nodeState, fences []int64) (*Lease, error) {
	var nodes []string
	var granted []int
	var fence int64
	for i, s := range states {
		if s == stateOK {
			nodes = append(nodes, r.opt.NodeNames[i])
			granted = append(granted, i)
			fence = max(fence, fences[i])
		}
	}
	valid := r.opt.validUntil(start)
	if !time.Now().Before(valid) {
		return nil, nil
	}
	if !r.fenced {
		return newLease(key, token, 0, r.opt.TTL, valid, nodes), nil
	}
	// Second round: raise every granting node's counter to the fence, so
	// any later quorum (which overlaps this one) issues a larger token.
	ratchet := fanout(ctx, len(granted), r.opt.NodeTimeout, func(ctx context.Context, j int) (int64, error) {
		return r.pipes[granted[j]].evalInt(ctx, fenceRatchetScript, fenceRatchetSrc, []string{key, fenceKey(key)}, token, fence)
	})
	ok := 0
	for range granted {
		if res := <-ratchet; res.err == nil && res.val == 1 {
			ok++
		}
	}
	if ok < r.quorum || !time.Now().Before(valid) {
		return nil, nil
	}
	return newLease(key, token, fence, r.opt.TTL, valid, nodes), nil
}

// releaseAll runs the release script on every node whose state says it may
// hold token and returns how many nodes may still hold it afterwards (an
// unknown SET may land later unless its release found and deleted it).
func (r *Redlock) releaseAll(ctx context.Context, key, token string, states []nodeState) int {
	var idx []int
	for i, s := range states {
		if s == stateOK || s == stateUnknown {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0
	}
	cctx, cancel := cleanupCtx(ctx, r.opt.NodeTimeout)
	defer cancel()
	ch := fanout(cctx, len(idx), r.opt.NodeTimeout, func(ctx context.Context, j int) (int64, error) {
		return r.pipes[idx[j]].evalInt(ctx, releaseScript, releaseSrc, []string{key}, token)
	})
	maybe := 0
	for range idx {
		res := <-ch
		s := states[idx[res.node]]
		switch {
		case res.err != nil:
			maybe++
		case s == stateUnknown && res.val == 0:
			maybe++ // the SET may still be in flight
		}
	}
	return maybe
}

// Release deletes the key on every node that holds the lease's token. It
// returns nil once a node released it and too few nodes are left
// undecided to hold a quorum, ErrNotHeld when no node held it, and
// ErrOutcomeUnknown when a quorum of nodes did not answer.
func (r *Redlock) Release(ctx context.Context, l *Lease) error {
	n := len(r.nodes)
	ch := fanout(ctx, n, r.opt.NodeTimeout, func(ctx context.Context, i int) (int64, error) {
		return r.pipes[i].evalInt(ctx, releaseScript, releaseSrc, []string{l.Key}, l.Token)
	})
	var released, failed, answered int
	var lastErr error
	for answered < n {
		res := <-ch
		answered++
		switch {
		case res.err != nil:
			failed++
			lastErr = res.err
		case res.val == 1:
			released++
		}
		if released > 0 && failed+(n-answered) < r.quorum {
			l.MarkLost(ErrReleased)
			return nil
		}
	}
	l.MarkLost(ErrReleased)
	switch {
	case failed >= r.quorum:
		return UnknownError(r.name, "release", l.Key, lastErr)
	case released == 0:
		return NotHeldError(r.name, "release", l.Key)
	}
	return nil
}

// Extend resets the TTL on every node that holds the token; it succeeds
// when a quorum did so and the new validity (start + TTL - drift) is
// ahead. It returns ErrNotHeld when a quorum certainly did not extend,
// ErrOutcomeUnknown when that cannot be told.
func (r *Redlock) Extend(ctx context.Context, l *Lease) error {
	n := len(r.nodes)
	start := time.Now()
	ch := fanout(ctx, n, r.opt.NodeTimeout, func(ctx context.Context, i int) (int64, error) {
		return r.pipes[i].evalInt(ctx, extendScript, extendSrc, []string{l.Key}, l.Token, ms(r.opt.TTL))
	})
	var okN, noN, answered int
	var nodes []string
	var lastErr error
	for answered < n && okN < r.quorum && noN <= n-r.quorum {
		res := <-ch
		answered++
		switch {
		case res.err == nil && res.val == 1:
			okN++
			nodes = append(nodes, r.opt.NodeNames[res.node])
		case res.err == nil || NotSent(res.err):
			noN++
		default:
			lastErr = res.err
		}
	}
	switch {
	case okN >= r.quorum:
		valid := r.opt.validUntil(start)
		if !time.Now().Before(valid) {
			return NotHeldError(r.name, "extend (validity elapsed)", l.Key)
		}
		l.SetValidity(valid)
		slices.Sort(nodes)
		l.Nodes = nodes
		return nil
	case noN > n-r.quorum:
		return NotHeldError(r.name, "extend", l.Key)
	}
	return UnknownError(r.name, "extend", l.Key, lastErr)
}

// fenceKey is the per-lock fencing counter's key.
func fenceKey(key string) string { return key + ":fence" }
