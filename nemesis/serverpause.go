package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
)

// ServerPause stops one node's process (SIGSTOP locally, docker pause in a
// container) with Cluster.Pause and continues it with Cluster.Resume:
// connections stay open and commands queue unanswered; on resume the node
// answers them late, and keys whose (wall-clock) expiry passed during the
// pause are gone.
// Draw picks a node and a duration in [MinTTLs, MaxTTLs] × TTL (default
// 0.5 to 3).
type ServerPause struct {
	Env              Env
	MinTTLs, MaxTTLs float64
}

// Kind returns "server-pause".
func (*ServerPause) Kind() string { return KindServerPause }

// Draw draws a server pause.
func (p *ServerPause) Draw(r *rand.Rand, t Topology) Fault {
	lo, hi := p.MinTTLs, p.MaxTTLs
	if hi == 0 {
		lo, hi = 0.5, 3
	}
	n := pick(r, t.Nodes)
	return Fault{Kind: KindServerPause, Nodes: []string{n}, Duration: scaled(r, t.ttl(), lo, hi)}
}

// Start pauses the fault's nodes (several for a fault aimed at a lease).
func (p *ServerPause) Start(ctx context.Context, f Fault) error {
	if len(f.Nodes) == 0 {
		return fmt.Errorf("%w: server-pause needs at least one node", ErrBadFault)
	}
	for _, n := range f.Nodes {
		if err := p.Env.Cluster.Pause(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// Stop resumes the fault's nodes.
func (p *ServerPause) Stop(ctx context.Context, f Fault) error {
	var errs []error
	for _, n := range f.Nodes {
		errs = append(errs, p.Env.Cluster.Resume(ctx, n))
	}
	return errors.Join(errs...)
}
