package nemesis

import (
	"context"
	"math/rand/v2"
)

// ClientPause emulates a stop-the-world pause (a long GC) of one client:
// Cluster.Freeze holds every byte on all of the client's links, both ways,
// including its renewal (watchdog) traffic and its resource writes, and
// Cluster.Thaw delivers them afterwards, as a resumed process would send
// them. The client's goroutines keep running locally; what the rest of the
// system sees is exactly a client that went silent and then spoke again.
// Draw picks a client and a duration in [MinTTLs, MaxTTLs] × TTL (default
// 0.5 to 3, so often longer than the lease).
type ClientPause struct {
	Env              Env
	MinTTLs, MaxTTLs float64
}

// Kind returns "client-pause".
func (*ClientPause) Kind() string { return KindClientPause }

// Draw draws a client pause.
func (p *ClientPause) Draw(r *rand.Rand, t Topology) Fault {
	lo, hi := p.MinTTLs, p.MaxTTLs
	if hi == 0 {
		lo, hi = 0.5, 3
	}
	c := pick(r, t.Clients)
	return Fault{Kind: KindClientPause, Clients: []string{c}, Duration: scaled(r, t.ttl(), lo, hi)}
}

// Start freezes the client.
func (p *ClientPause) Start(ctx context.Context, f Fault) error {
	c, err := one(f, f.Clients, "client")
	if err != nil {
		return err
	}
	return p.Env.Cluster.Freeze(ctx, c)
}

// Stop thaws the client.
func (p *ClientPause) Stop(ctx context.Context, f Fault) error {
	c, err := one(f, f.Clients, "client")
	if err != nil {
		return err
	}
	return p.Env.Cluster.Thaw(ctx, c)
}
