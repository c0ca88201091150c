package nemesis

import (
	"context"
	"math/rand/v2"
)

func init() {
	Register(Spec{Kind: KindServerPause, Order: 50, Needs: []Capability{NeedProcess}, Params: []string{"nodes"},
		Colour: rgb(0x8c, 0x56, 0x4b), New: func(env Env) Nemesis { return &ServerPause{Env: env} }})
}

// KindServerPause is a node's process stopped and continued.
const KindServerPause = "server-pause"

// ServerPause stops one node's process (SIGSTOP locally, docker pause in a
// container) with Cluster.Pause and continues it with Cluster.Resume:
// connections stay open and commands queue unanswered; on resume the node
// answers them late, and keys whose (wall-clock) expiry passed during the
// pause are gone.
// Draw picks a node and a duration in the Span (default 0.5 to 3 TTLs);
// its shortest step is the Span's.
type ServerPause struct {
	Env Env
	Span
}

// Draw draws a server pause.
func (p *ServerPause) Draw(r *rand.Rand, t Topology) Fault {
	n := pick(r, t.Nodes)
	return Fault{Kind: KindServerPause, Nodes: []string{n}, Duration: p.draw(r, t, 0.5, 3)}
}

// Start pauses the fault's nodes (several for a fault aimed at a lease).
func (p *ServerPause) Start(ctx context.Context, f Fault) error {
	return forNodes(ctx, f, p.Env.Cluster.Pause)
}

// Stop resumes the fault's nodes.
func (p *ServerPause) Stop(ctx context.Context, f Fault) error {
	return healNodes(ctx, f, p.Env.Cluster.Resume)
}

// Aim pauses the nodes that granted the holder's lease, enough of them to
// break its quorum, soon after it was granted.
func (p *ServerPause) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	return aimLease(f)
}
