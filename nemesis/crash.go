package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

func init() {
	Register(Spec{Kind: KindCrash, Order: 60, Needs: []Capability{NeedProcess}, Params: []string{"nodes", "restart-delay"},
		Busy: crashStart, Squeeze: squeezeCrash, Colour: rgb(0x55, 0x55, 0x55), New: func(env Env) Nemesis { return &Crash{Env: env} }})
}

// A crash is aimed at a lease and has a shortest step.
var (
	_ Targeter   = (*Crash)(nil)
	_ MinStepper = (*Crash)(nil)
)

// KindCrash is a node killed and restarted.
const KindCrash = "crash"

// Crash kills one node abruptly (SIGKILL) with Cluster.Kill, waits the
// fault's RestartDelay, and restarts it with Cluster.Restart, all inside
// Start; the node comes back with whatever its persistence mode kept
// (nothing with "none": the Redlock crash anomaly). Start therefore takes
// RestartDelay. If the wait is cancelled, the node stays down and Stop
// restarts it; Stop does nothing for a node that is already back.
//
// Draw picks a node, a RestartDelay in the Span (default 0 to 2 TTLs, so
// both shorter and longer than the lease) and a Duration of 0.5 TTL after
// the restart.
type Crash struct {
	Env Env
	Span

	mu   sync.Mutex
	down map[string]bool // nodes this nemesis killed and has not restarted
}

// Draw draws a crash.
func (c *Crash) Draw(r *rand.Rand, t Topology) Fault {
	n := pick(r, t.Nodes)
	return Fault{
		Kind:         KindCrash,
		Nodes:        []string{n},
		RestartDelay: c.draw(r, t, 0, 2),
		Duration:     scaled(r, t.ttl(), 0.5, 0.5),
	}
}

// Start kills the fault's nodes (several for a fault aimed at a lease),
// all at once, waits RestartDelay (or until ctx ends) and restarts them
// all at once: one after another, a lease's three nodes took 300 to
// 900 ms to come back on a busy machine, longer than the holds that
// the restart must fall within.
func (c *Crash) Start(ctx context.Context, f Fault) error {
	if len(f.Nodes) == 0 {
		return fmt.Errorf("%w: %s needs at least one node", ErrBadFault, f.Kind)
	}
	c.mark(f.Nodes, true)
	if err := c.Env.Cluster.Kill(ctx, f.Nodes...); err != nil {
		return err
	}
	if f.RestartDelay > 0 {
		t := time.NewTimer(f.RestartDelay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return c.restart(ctx, f.Nodes)
}

// Stop restarts those of the fault's nodes still down after Start.
func (c *Crash) Stop(ctx context.Context, f Fault) error {
	c.mu.Lock()
	var down []string
	for _, n := range f.Nodes {
		if c.down[n] {
			down = append(down, n)
		}
	}
	c.mu.Unlock()
	if len(down) == 0 {
		return nil
	}
	return c.restart(ctx, down)
}

// crashStart is how long a crash's start takes: its restart delay.
func crashStart(f Fault) time.Duration { return f.RestartDelay }

// squeezeCrash shortens a crash's restart delay to at most d.
func squeezeCrash(f *Fault, d time.Duration) { f.RestartDelay = max(0, min(f.RestartDelay, d)) }

func (c *Crash) restart(ctx context.Context, nodes []string) error {
	if err := c.Env.Cluster.Restart(ctx, nodes...); err != nil {
		return fmt.Errorf("nemesis: restart %s: %w", strings.Join(nodes, ","), err)
	}
	c.mark(nodes, false)
	return nil
}

func (c *Crash) mark(nodes []string, down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down == nil {
		c.down = map[string]bool{}
	}
	for _, n := range nodes {
		if down {
			c.down[n] = true
		} else {
			delete(c.down, n)
		}
	}
}

// Aim crashes the nodes that granted the holder's lease, enough of them
// to break its quorum, soon after it was granted, and restarts them
// within a tenth of a TTL (the shortest restart delay the nemesis allows
// at least): a holder keeps the lock for a fraction of its TTL, and the
// nodes must come back (empty without persistence) while it still holds.
func (c *Crash) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f = aimLease(f)
	lo := ttls(t, c.least(0))
	f.RestartDelay = uniform(r, lo, max(lo, t.ttl()/10)).Round(time.Millisecond)
	return f
}

// MinStep is the shortest restart delay drawn (MinTTLs, default 0) plus
// the half TTL a crash stays in the plan after its restart.
func (c *Crash) MinStep(t Topology) time.Duration { return ttls(t, c.least(0)+0.5) }
