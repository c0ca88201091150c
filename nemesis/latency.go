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

// Aim slows one client's links to every node: three times in four the
// holder's, right after it acquired, else (the second of every four, so
// that a run's first two aims include both) a waiter's, late in its
// acquire.
// The fault (and so the history's detail: "delay= stream=") records the
// stream and delay drawn, because each bug class needs its own:
//
//   - A two-step release (GET, then DEL) breaks when the two land far
//     apart: the holder's client-to-node stream is slowed by 0.5 to 0.8
//     TTLs, at most 0.9 node timeouts, so the commands succeed late and
//     the DEL can land past the key's expiry.
//   - A lock that counts its validity from the reply rather than from the
//     send over-claims by the reply's delay: a waiter's stream is drawn,
//     node-to-client three times in four (its winning acquire's reply
//     comes late; measured, both ways, whose delay is halved, missed
//     it), else both ways or client-to-node, by 0.2 to 0.9 node timeouts
//     one way (half of that both ways).
//   - A watchdog whose renewal times out may stop silently: on a lock
//     that renews by itself (Topology.Renews) one holder aim in three is
//     1.2 to 2 node timeouts long, so its commands time out rather than
//     succeed late.
//
// The resource link is left alone.
func (l *Latency) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Shape = LatencyLink
	f.Nodes = append([]string(nil), t.Nodes...)
	nt := t.nodeTimeout()
	if nth%4 == 1 {
		f = aimClients(f, AimWaiter, TargetWaiter)
		f.Stream = cluster.Downstream
		if r.IntN(4) == 0 {
			f.Stream = []cluster.Stream{cluster.Both, cluster.Upstream}[r.IntN(2)]
		}
		f.Delay = oneWay(f.Stream, scaled(r, nt, 0.2, 0.9))
	} else {
		f = aimClients(f, AimHolder, TargetHolder)
		// Upstream, long: the GET and DEL of a two-step release straddle
		// the expiry only so. Measured on the unsafe-getdel power row (10
		// seeds, two runs at once): drawing the holder's stream too (both
		// ways or downstream a quarter of the time, or half) caught it in
		// 6 and 3 of 10 seeds, against 9 of 10 with upstream only.
		f.Stream = cluster.Upstream
		f.Delay = min(scaled(r, t.ttl(), 0.5, 0.8), (nt * 9 / 10).Round(time.Millisecond))
		if t.Renews && r.IntN(3) == 0 {
			// Past the node timeout: a renewal times out.
			f.Delay = scaled(r, nt, 1.2, 2)
		}
	}
	f.Jitter = uniform(r, 0, f.Delay/50).Round(time.Millisecond)
	// 1.5 to 3.5 TTLs: a slowed holder's round (acquire, hold, release)
	// takes about a TTL, and each is a chance for the straddle.
	f.Duration = scaled(r, t.ttl(), 1.5, 3.5)
	return f
}

// oneWay is the delay d on one stream, halved when it acts both ways (a
// round trip then pays it twice).
func oneWay(s cluster.Stream, d time.Duration) time.Duration {
	if s == cluster.Both {
		d /= 2
	}
	return d.Round(time.Millisecond)
}
