package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

func init() {
	Register(Spec{Kind: KindLatency, Order: 20, Needs: []Capability{NeedLinks}, Colour: rgb(0x17, 0xbe, 0xcf),
		Params: []string{"shape", "nodes", "clients", "links", "delay", "stream"}, New: func(env Env) Nemesis { return &Latency{Env: env} }})
}

// KindLatency is a delay added to links.
const KindLatency = "latency"

// Latency scopes (the Shape of a latency fault).
const (
	// LatencyNode slows every client's link to one node.
	LatencyNode = "node"
	// LatencyLink slows one client's link to one node.
	LatencyLink = "link"
)

// Latency delays links with Cluster.AddLatency and removes the delay with
// Cluster.RemoveLatency. Draw picks a scope (node or link), a delay in
// Delay (default 0.05 to 0.5 TTLs), a jitter up to half the
// delay, and a stream: both ways half the time, else one direction
// (asymmetric). The fault lasts 0.5 to 3 TTLs; its shortest step is the
// default half TTL.
type Latency struct {
	Env Env
	// Delay bounds the delay drawn.
	Delay Span
}

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
	f.Delay = l.Delay.draw(r, t, 0.05, 0.5)
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

// Aim slows the links from the holder to the nodes (three times in four),
// right after it acquired, or a waiter's links, late in its acquire.
//
// The holder's links are slowed one way, client to node, by 0.5 to 0.8
// TTLs, at most 0.9 node timeouts (a round trip stays below the timeout:
// the commands succeed, late). A release that checks the key (GET) and
// then deletes it (DEL) in two round trips then has its check land a
// delay after the hold ends, and its delete a second delay later: a hold
// h shorter than TTL - delay, with h + 2 x delay past the TTL, puts the
// key's expiry between the two, where a waiter can take the lock and
// lose it to the delete. (A delay both ways spends half of the timeout
// on replies and lands the delete sooner.) With the default node timeout
// of TTL/10 no delay can straddle a TTL: a longer --node-timeout lets it.
// A waiter's links are slowed both ways by 0.2 to 0.45 node timeouts, so
// that its reply comes back after much of the lease is gone. The
// resource link is left alone.
func (l *Latency) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Shape = LatencyLink
	f.Nodes = append([]string(nil), t.Nodes...)
	if nth%4 == 3 {
		f = aimClients(f, AimWaiter, TargetWaiter)
		f.Delay = scaled(r, t.nodeTimeout(), 0.2, 0.45)
		f.Jitter = uniform(r, 0, f.Delay/10).Round(time.Millisecond)
		f.Stream = ""
	} else {
		f = aimClients(f, AimHolder, TargetHolder)
		f.Delay = min(scaled(r, t.ttl(), 0.5, 0.8), (t.nodeTimeout() * 9 / 10).Round(time.Millisecond))
		f.Jitter = uniform(r, 0, f.Delay/50).Round(time.Millisecond)
		f.Stream = cluster.Upstream
	}
	// 1.5 to 3.5 TTLs: a slowed holder's round (acquire, hold, release)
	// takes about a TTL, and each is a chance for the straddle.
	f.Duration = scaled(r, t.ttl(), 1.5, 3.5)
	return f
}
