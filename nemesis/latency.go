package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

// Latency scopes (the Shape of a latency fault).
const (
	// LatencyNode slows every client's link to one node.
	LatencyNode = "node"
	// LatencyLink slows one client's link to one node.
	LatencyLink = "link"
)

// Latency delays links with Cluster.AddLatency and removes the delay with
// Cluster.RemoveLatency. Draw picks a scope (node or link), a delay in
// [MinTTLs, MaxTTLs] × TTL (default 0.05 to 0.5), a jitter up to half the
// delay, and a stream: both ways half the time, else one direction
// (asymmetric). The fault lasts 0.5 to 3 TTLs.
type Latency struct {
	Env              Env
	MinTTLs, MaxTTLs float64
}

// Kind returns "latency".
func (*Latency) Kind() string { return KindLatency }

// Draw draws a latency fault.
func (l *Latency) Draw(r *rand.Rand, t Topology) Fault {
	f := Fault{Kind: KindLatency, Nodes: []string{pick(r, t.Nodes)}}
	if r.IntN(2) == 0 {
		f.Shape = LatencyNode
		f.Links = cross(t.Clients, f.Nodes)
	} else {
		f.Shape = LatencyLink
		f.Clients = []string{pick(r, t.Clients)}
		f.Links = cross(f.Clients, f.Nodes)
	}
	lo, hi := l.MinTTLs, l.MaxTTLs
	if hi == 0 {
		lo, hi = 0.05, 0.5
	}
	f.Delay = scaled(r, t.ttl(), lo, hi)
	f.Jitter = uniform(r, 0, f.Delay/2).Round(time.Millisecond)
	switch r.IntN(4) {
	case 0:
		f.Stream = cluster.Upstream
	case 1:
		f.Stream = cluster.Downstream
	default:
		f.Stream = cluster.Both
	}
	f.Duration = scaled(r, t.ttl(), 0.5, 3)
	return f
}

// Start adds the latency to the fault's links.
func (l *Latency) Start(ctx context.Context, f Fault) error {
	ls := links(l.Env.Cluster, f)
	if len(ls) == 0 {
		return fmt.Errorf("%w: latency with no links", ErrBadFault)
	}
	return l.Env.Cluster.AddLatency(ctx, ls, cluster.Latency{Delay: f.Delay, Jitter: f.Jitter, Stream: f.Stream})
}

// Stop removes latency from the fault's links.
func (l *Latency) Stop(ctx context.Context, f Fault) error {
	return l.Env.Cluster.RemoveLatency(ctx, links(l.Env.Cluster, f))
}
