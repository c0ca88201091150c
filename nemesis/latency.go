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
// acquire. Each aim draws its direction (client-to-node, node-to-client
// or both) and its size (long: up to 0.9 node timeouts, enough to
// straddle a lease; or short), except that a run's first aim of each
// target takes the direction and size its bug class needs, so that one
// short run reaches both classes. The fault (and so the history's detail:
// "delay= stream=") records what was drawn, for coverage to count:
//
//   - A two-step release (GET, then DEL) breaks when the two land far
//     apart: the holder's client-to-node stream is slowed by 0.5 to 0.8
//     TTLs, at most 0.9 node timeouts, so the commands succeed late and
//     the DEL can land past the key's expiry. The first holder aim
//     (unless the lock renews by itself), and half of the later ones,
//     are this one.
//   - A lock that counts its validity from the reply rather than from the
//     send over-claims by the reply's delay: the first waiter aim slows
//     its node-to-client stream by 0.4 to 0.9 node timeouts (its winning
//     acquire's reply comes late; measured, both ways, whose delay is
//     halved, missed it). Later aims of either target draw it too: a
//     holder's next acquire over-claims as well.
//   - A queue whose waiter leaves when it gives up (Topology.Queues)
//     keeps a waiter that left when its leave lands before the join it
//     gives up on: on such a lock the first waiter aim slows the waiter's
//     client-to-node stream by 1 to 2 node timeouts with a jitter as
//     large, so its commands time out and land out of order, for at
//     least its acquire timeout and half a TTL.
//   - A watchdog whose renewal times out may stop silently: on a lock
//     that renews by itself (Topology.Renews) the first holder aim and
//     one later holder aim in three are 1.2 to 2 node timeouts long, so
//     its commands time out rather than succeed late.
//
// The resource link is left alone.
func (l *Latency) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Shape = LatencyLink
	f.Nodes = append([]string(nil), t.Nodes...)
	nt := t.nodeTimeout()
	long := min(scaled(r, t.ttl(), 0.5, 0.8), (nt * 9 / 10).Round(time.Millisecond))
	switch {
	case nth == 1 && t.Queues:
		f = aimClients(f, AimWaiter, TargetWaiter)
		f.Stream, f.Delay = cluster.Upstream, scaled(r, nt, 1, 2)
		// Jitter as large as the delay: each command lands 0 to 2 delays
		// after it was sent, so a leave sent one node timeout after the
		// join it gives up on may land first, and the join then queues a
		// waiter that has left (measured on seed-fair: without jitter,
		// every delayed leave landed after its join and cleaned up).
		f.Jitter = f.Delay
		f.Duration = t.pastGiveUp(scaled(r, t.ttl(), 1.5, 3.5))
		return f
	case nth == 1:
		f = aimClients(f, AimWaiter, TargetWaiter)
		f.Stream, f.Delay = cluster.Downstream, scaled(r, nt, 0.4, 0.9)
	case nth%4 == 1:
		f = aimClients(f, AimWaiter, TargetWaiter)
		f.Stream, f.Delay = drawLatency(r, nt)
	case nth == 0:
		f = aimClients(f, AimHolder, TargetHolder)
		f.Stream, f.Delay = cluster.Upstream, long
		if t.Renews {
			f.Delay = scaled(r, nt, 1.2, 2)
		}
	default:
		f = aimClients(f, AimHolder, TargetHolder)
		f.Stream, f.Delay = cluster.Upstream, long
		if r.IntN(2) == 0 {
			f.Stream, f.Delay = drawLatency(r, nt)
		}
		if t.Renews && r.IntN(3) == 0 {
			// Past the node timeout: a renewal times out.
			f.Stream, f.Delay = cluster.Upstream, scaled(r, nt, 1.2, 2)
		}
	}
	f.Jitter = uniform(r, 0, f.Delay/50).Round(time.Millisecond)
	// 1.5 to 3.5 TTLs: a slowed holder's round (acquire, hold, release)
	// takes about a TTL, and each is a chance for the straddle.
	f.Duration = scaled(r, t.ttl(), 1.5, 3.5)
	return f
}

// drawLatency draws an aimed latency's direction (node-to-client half the
// time, else client-to-node or both) and one-way delay: three times in
// four long, 0.4 to 0.9 node timeouts, else short, 0.05 to 0.2; halved
// both ways, where a round trip pays it twice and must stay inside the
// node timeout.
func drawLatency(r *rand.Rand, nt time.Duration) (cluster.Stream, time.Duration) {
	s := cluster.Downstream
	if r.IntN(2) == 0 {
		s = []cluster.Stream{cluster.Both, cluster.Upstream}[r.IntN(2)]
	}
	d := scaled(r, nt, 0.4, 0.9)
	if r.IntN(4) == 0 {
		d = scaled(r, nt, 0.05, 0.2)
	}
	return s, oneWay(s, d)
}

// oneWay is the delay d on one stream, halved when it acts both ways (a
// round trip then pays it twice).
func oneWay(s cluster.Stream, d time.Duration) time.Duration {
	if s == cluster.Both {
		d /= 2
	}
	return d.Round(time.Millisecond)
}
