package nemesis

import (
	"context"
	"math/rand/v2"
)

func init() {
	Register(Spec{Kind: KindClientPause, Order: 30, Needs: []Capability{NeedLinks}, Params: []string{"clients"},
		Colour: rgb(0xe6, 0xb4, 0x00), New: func(env Env) Nemesis { return &ClientPause{Env: env} }})
}

// KindClientPause is a stop-the-world pause of one client.
const KindClientPause = "client-pause"

// ClientPause is a stop-the-world pause (a long GC) of one client. When the
// clients are processes, the harness's Env.PauseClient stops the client's
// process (SIGSTOP: its renewal thread freezes with it) and its links, and
// Env.ResumeClient continues both: the pause model "process". Otherwise
// Cluster.Freeze holds every byte on all of the client's links, both ways,
// including its renewal (watchdog) traffic and its resource writes, and
// Cluster.Thaw delivers them afterwards, as a resumed process would send
// them; the client's goroutines keep running locally (a watchdog may see
// its renewals time out and tell the holder before the pause ends): the
// pause model "links", softer than a real pause.
// Draw picks a client and a duration in the Span (default 0.5 to 3 TTLs,
// so often longer than the lease); its shortest step is the Span's.
type ClientPause struct {
	Env Env
	Span
}

// Draw draws a client pause.
func (p *ClientPause) Draw(r *rand.Rand, t Topology) Fault {
	c := pick(r, t.Clients)
	return Fault{Kind: KindClientPause, Clients: []string{c}, Duration: p.draw(r, t, 0.5, 3)}
}

// Start stops the client (Env.PauseClient), or freezes its links.
func (p *ClientPause) Start(ctx context.Context, f Fault) error {
	if p.Env.PauseClient != nil {
		return onClient(ctx, f, p.Env.PauseClient)
	}
	return onClient(ctx, f, p.Env.Cluster.Freeze)
}

// Stop continues the client (Env.ResumeClient), or thaws its links.
func (p *ClientPause) Stop(ctx context.Context, f Fault) error {
	if p.Env.ResumeClient != nil {
		return onClient(ctx, f, p.Env.ResumeClient)
	}
	return onClient(ctx, f, p.Env.Cluster.Thaw)
}

// Aim aims a pause at the holder (four times in five), right after it
// acquired, for 1.2 to 3 TTLs so that the lease expires while it is
// paused in its critical section; or at a waiter, mid-acquire.
func (p *ClientPause) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	if nth%5 == 4 {
		return aimClients(f, AimWaiter, TargetWaiter)
	}
	f = aimClients(f, AimHolder, TargetHolder)
	f.Duration = scaled(r, t.ttl(), 1.2, 3)
	return f
}
