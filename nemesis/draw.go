package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/redis/go-redis/v9"
)

// This file holds what the kinds share to draw a fault and to apply it
// node by node.

// Span bounds a drawn length in TTLs: MinTTLs to MaxTTLs times the lock's
// TTL. Both zero means the kind's default; each kind says what its span
// draws (a fault's window, a crash's restart delay, a latency's delay).
type Span struct {
	MinTTLs, MaxTTLs float64
}

// bounds returns the span, or lo and hi when it is unset.
func (s Span) bounds(lo, hi float64) (float64, float64) {
	if s.MaxTTLs == 0 {
		return lo, hi
	}
	return s.MinTTLs, s.MaxTTLs
}

// draw draws a length in the span (default lo to hi TTLs).
func (s Span) draw(r *rand.Rand, t Topology, lo, hi float64) time.Duration {
	lo, hi = s.bounds(lo, hi)
	return scaled(r, t.ttl(), lo, hi)
}

// least is the span's shortest length in TTLs (default lo).
func (s Span) least(lo float64) float64 {
	lo, _ = s.bounds(lo, 0)
	return lo
}

// MinStep is the shortest fault window the span draws: MinTTLs, or
// DefaultMinTTLs (half a TTL) when unset, the shortest of every kind whose
// window the span bounds. Kinds whose span bounds something else, or that
// need more, state their own.
func (s Span) MinStep(t Topology) time.Duration { return ttls(t, s.least(DefaultMinTTLs)) }

// ttls returns x × TTL, rounded to a millisecond.
func ttls(t Topology, x float64) time.Duration {
	return time.Duration(x * float64(t.ttl())).Round(time.Millisecond)
}

// uniform draws a duration uniformly in [lo, hi].
func uniform(r *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}

// scaled draws uniformly in [lo×ttl, hi×ttl], rounded to a millisecond.
func scaled(r *rand.Rand, ttl time.Duration, lo, hi float64) time.Duration {
	d := uniform(r, time.Duration(lo*float64(ttl)), time.Duration(hi*float64(ttl)))
	return d.Round(time.Millisecond)
}

// pick draws one element.
func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// sample draws k distinct elements, in the order of xs.
func sample(r *rand.Rand, xs []string, k int) []string {
	idx := r.Perm(len(xs))[:k]
	in := make([]bool, len(xs))
	for _, i := range idx {
		in[i] = true
	}
	out := make([]string, 0, k)
	for i, x := range xs {
		if in[i] {
			out = append(out, x)
		}
	}
	return out
}

// cross returns every link from clients to nodes.
func cross(clients, nodes []string) []cluster.Link {
	out := make([]cluster.Link, 0, len(clients)*len(nodes))
	for _, c := range clients {
		for _, n := range nodes {
			out = append(out, cluster.Link{Client: c, Target: n})
		}
	}
	return out
}

// links returns f.Links, or every link from f.Clients (all of the
// cluster's clients if empty) to f.Nodes.
func links(c cluster.Cluster, f Fault) []cluster.Link {
	if len(f.Links) > 0 {
		return f.Links
	}
	clients := f.Clients
	if len(clients) == 0 {
		clients = c.Clients()
	}
	return cross(clients, f.Nodes)
}

// one checks that a fault names exactly one node or client.
func one(f Fault, xs []string, what string) (string, error) {
	if len(xs) != 1 {
		return "", fmt.Errorf("%w: %s needs exactly one %s, got %v", ErrBadFault, f.Kind, what, xs)
	}
	return xs[0], nil
}

// permanent is embedded by the faults that are not undone (a crashed
// client, a clock step, lost keys): their Stop does nothing.
type permanent struct{}

// Stop does nothing: the fault stays done.
func (permanent) Stop(context.Context, Fault) error { return nil }

// onClient runs do on the fault's one client; a fault that names none or
// several is refused.
func onClient(ctx context.Context, f Fault, do func(ctx context.Context, client string) error) error {
	c, err := one(f, f.Clients, "client")
	if err != nil {
		return err
	}
	return do(ctx, c)
}

// forNodes runs do on each of the fault's nodes in turn (a fault aimed at
// a lease names several), and stops at the first error. A fault that
// names no node is refused.
func forNodes(ctx context.Context, f Fault, do func(ctx context.Context, node string) error) error {
	if len(f.Nodes) == 0 {
		return fmt.Errorf("%w: %s needs at least one node", ErrBadFault, f.Kind)
	}
	for _, n := range f.Nodes {
		if err := do(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// healNodes runs undo on every one of the fault's nodes, even after an
// error, and returns every error.
func healNodes(ctx context.Context, f Fault, undo func(ctx context.Context, node string) error) error {
	var errs []error
	for _, n := range f.Nodes {
		errs = append(errs, undo(ctx, n))
	}
	return errors.Join(errs...)
}

// adminClient connects to the Redis server at addr, a node's own address
// (Cluster.AdminAddr, past every proxy, so it works under any link
// fault), for one fault's commands: one connection, no retries. Close it
// after use.
func adminClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:            addr,
		DialTimeout:     2 * time.Second,
		MaxRetries:      -1,
		PoolSize:        1,
		DisableIdentity: true,
	})
}
