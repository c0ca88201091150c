package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Crash kills one node abruptly (SIGKILL) with Cluster.Kill, waits the
// fault's RestartDelay, and restarts it with Cluster.Restart, all inside
// Start; the node comes back with whatever its persistence mode kept
// (nothing with "none": the Redlock crash anomaly). Start therefore takes
// RestartDelay. If the wait is cancelled, the node stays down and Stop
// restarts it; Stop does nothing for a node that is already back.
//
// Draw picks a node, a RestartDelay in [MinTTLs, MaxTTLs] × TTL (default
// 0 to 2, so both shorter and longer than the lease) and a Duration of
// 0.5 TTL after the restart.
type Crash struct {
	Env              Env
	MinTTLs, MaxTTLs float64

	mu   sync.Mutex
	down map[string]bool // nodes this nemesis killed and has not restarted
}

// Kind returns "crash".
func (*Crash) Kind() string { return KindCrash }

// Draw draws a crash.
func (c *Crash) Draw(r *rand.Rand, t Topology) Fault {
	lo, hi := c.MinTTLs, c.MaxTTLs
	if hi == 0 {
		lo, hi = 0, 2
	}
	n := pick(r, t.Nodes)
	return Fault{
		Kind:         KindCrash,
		Nodes:        []string{n},
		RestartDelay: scaled(r, t.ttl(), lo, hi),
		Duration:     scaled(r, t.ttl(), 0.5, 0.5),
	}
}

// Start kills the fault's nodes (several for a fault aimed at a lease),
// waits RestartDelay (or until ctx ends) and restarts them all.
func (c *Crash) Start(ctx context.Context, f Fault) error {
	if len(f.Nodes) == 0 {
		return fmt.Errorf("%w: crash needs at least one node", ErrBadFault)
	}
	for _, n := range f.Nodes {
		c.mark(n, true)
		if err := c.Env.Cluster.Kill(ctx, n); err != nil {
			return err
		}
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
	var errs []error
	for _, n := range f.Nodes {
		errs = append(errs, c.restart(ctx, n))
	}
	return errors.Join(errs...)
}

// Stop restarts those of the fault's nodes still down after Start.
func (c *Crash) Stop(ctx context.Context, f Fault) error {
	var errs []error
	for _, n := range f.Nodes {
		c.mu.Lock()
		down := c.down[n]
		c.mu.Unlock()
		if down {
			errs = append(errs, c.restart(ctx, n))
		}
	}
	return errors.Join(errs...)
}

func (c *Crash) restart(ctx context.Context, n string) error {
	if err := c.Env.Cluster.Restart(ctx, n); err != nil {
		return fmt.Errorf("nemesis: restart %s: %w", n, err)
	}
	c.mark(n, false)
	return nil
}

func (c *Crash) mark(n string, down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down == nil {
		c.down = map[string]bool{}
	}
	if down {
		c.down[n] = true
	} else {
		delete(c.down, n)
	}
}
