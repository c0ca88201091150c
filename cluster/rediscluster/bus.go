package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

// ErrBusIsolated: another node's bus is isolated already; IsolateBus
// isolates one node at a time.
var ErrBusIsolated = errors.New("rediscluster: a node's bus is isolated already")

// IsolateBus cuts the node off the cluster bus, both ways, while clients
// and replication still reach it: the other nodes stop hearing from it
// and, after NodeTimeout, flag it failed and (if it is a master) promote
// its replica, while the node itself, hearing from no one, may go on
// believing it is a master until it notices it is in a minority.
//
// Cutting the node's own bus proxy is not enough: a Redis node counts
// any message from a peer as a sign of life, and the isolated node's own
// PINGs reach its peers through their bus proxies. So IsolateBus first
// cuts the node's bus proxy (peers' connections to it), then gives every
// other running node a new bus proxy and makes it announce that one; the
// peers learn the new addresses from each other's PINGs, which the
// isolated node no longer receives, so it alone keeps dialing the old
// proxies, which are then cut. Nodes that are down get their new proxy
// at Restart; a paused peer is an error (it could not learn its new
// address). One node at a time (ErrBusIsolated); isolating it again does
// nothing. It returns once the peers have moved, about NodeTimeout/2.
func (c *Cluster) IsolateBus(ctx context.Context, name string) error {
	b, err := c.node(name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.isolated {
	case b:
		return nil
	case nil:
	default:
		return fmt.Errorf("%w: %s (isolate %s)", ErrBusIsolated, c.isolated.Name(), name)
	}
	var peers []*node
	for _, n := range c.all {
		if n == b {
			continue
		}
		st, err := c.Core.State(n.Name())
		if err != nil {
			return err
		}
		if st == cluster.NodePaused {
			return fmt.Errorf("rediscluster: isolate %s's bus: peer %s is paused (resume it first)", name, n.Name())
		}
		peers = append(peers, n)
	}
	b.mu.Lock()
	err = b.bus.cut(ctx)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	c.isolated = b
	for _, n := range peers {
		if err := c.rehome(ctx, n); err != nil {
			return err
		}
	}
	if err := c.waitFor(ctx, "the peers of "+name+" moved to their new bus proxies", c.movedProblem(b)); err != nil {
		return err
	}
	for _, n := range peers {
		n.mu.Lock()
		for _, l := range n.retired {
			err = errors.Join(err, l.cut(ctx))
		}
		n.mu.Unlock()
	}
	return err
}

// rehome gives the node a new bus proxy, retiring the current one, and
// makes it announce it (now when it runs, at its next start otherwise).
func (c *Cluster) rehome(ctx context.Context, n *node) error {
	bus, err := newPeerLink(ctx, n.Name(), n.busAddr())
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.retired = append(n.retired, n.bus)
	n.bus = bus
	n.mu.Unlock()
	if st, _ := c.Core.State(n.Name()); st != cluster.NodeRunning {
		return nil
	}
	return configSet(ctx, n, "cluster-announce-bus-port", strconv.Itoa(bus.port))
}

// movedProblem says which running node other than b does not yet see a
// running peer other than b at its current bus proxy, or "".
func (c *Cluster) movedProblem(b *node) func(*Snapshot) string {
	return func(s *Snapshot) string {
		for _, st := range s.Nodes {
			if st.Name == b.Name() || st.Process != cluster.NodeRunning {
				continue
			}
			if st.Err != nil {
				return st.Err.Error()
			}
			for _, p := range st.view {
				peer, err := c.node(c.nameOf(p.id))
				if err != nil || peer == b || p.has("myself") {
					continue
				}
				if ps, _ := s.Node(peer.Name()); ps.Process != cluster.NodeRunning {
					continue
				}
				if _, bus := peer.announced(); p.busPort != bus {
					return fmt.Sprintf("%s sees %s's bus at port %d, not %d", st.Name, peer.Name(), p.busPort, bus)
				}
			}
		}
		return ""
	}
}

// HealBus ends the node's bus isolation: its bus proxy heals, so the
// peers reach it again and it learns their new bus addresses from their
// PINGs; the old proxies are closed. A master that was failed over
// meanwhile then finds a higher config epoch for its slots and turns
// into a replica of its promoted replica. It returns once the node sees
// every running peer at its current address (or at once when the node
// is not running); healing a node that is not isolated does nothing.
func (c *Cluster) HealBus(ctx context.Context, name string) error {
	b, err := c.node(name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.healBus(ctx, b)
}

// healBus is HealBus with mu held.
func (c *Cluster) healBus(ctx context.Context, b *node) error {
	if c.isolated != b {
		return nil
	}
	b.mu.Lock()
	err := b.bus.heal(ctx)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	c.isolated = nil
	for _, n := range c.all {
		n.mu.Lock()
		for _, l := range n.retired {
			err = errors.Join(err, l.close())
		}
		n.retired = nil
		n.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if st, _ := c.Core.State(b.Name()); st != cluster.NodeRunning {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, c.rejoinTimeout())
	defer cancel()
	return c.waitFor(wait, b.Name()+" sees its peers again", c.rejoinProblem(b))
}

// rejoinTimeout bounds the wait of HealBus for the node to see its peers
// again: they ping it within NodeTimeout/2, a few rounds at most.
func (c *Cluster) rejoinTimeout() time.Duration { return 4*c.cfg.NodeTimeout + 5*time.Second }

// rejoinProblem says which running peer b does not see at its current
// addresses with a connected link and no failure flag, or "".
func (c *Cluster) rejoinProblem(b *node) func(*Snapshot) string {
	return func(s *Snapshot) string {
		st, _ := s.Node(b.Name())
		if st.Err != nil {
			return st.Err.Error()
		}
		for _, p := range st.view {
			peer, err := c.node(c.nameOf(p.id))
			if err != nil || peer == b {
				continue
			}
			if ps, _ := s.Node(peer.Name()); ps.Process != cluster.NodeRunning {
				continue
			}
			if _, bus := peer.announced(); p.busPort != bus || !p.connected || p.has("fail") || p.has("fail?") {
				return fmt.Sprintf("%s sees %s at bus port %d (now %d), flags %v, connected %v",
					b.Name(), peer.Name(), p.busPort, bus, p.flags, p.connected)
			}
		}
		return ""
	}
}

// CutReplication cuts the master's data proxy, both ways: its replica
// (which replicates through it) stops receiving its writes, and so does
// a MIGRATE into it. Clients still reach the master through their own
// proxies. After a failover the node that replicates from the named node
// is its new replica (the old master).
func (c *Cluster) CutReplication(ctx context.Context, master string) error {
	n, err := c.node(master)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data.cut(ctx)
}

// HealReplication heals the master's data proxy; the cut connections are
// closed, and the replica reconnects and resynchronises.
func (c *Cluster) HealReplication(ctx context.Context, master string) error {
	n, err := c.node(master)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data.heal(ctx)
}

// HealAll removes every fault: the clients' links and the nodes' faults
// (cluster.Core.HealAll: paused nodes resume, down ones restart), then
// the replication cuts and the bus isolation. It does not undo
// failovers or migrations, and does not wait for the cluster to be
// healthy again (WaitHealthy does).
func (c *Cluster) HealAll(ctx context.Context) error {
	errs := []error{c.Core.HealAll(ctx)}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.all {
		n.mu.Lock()
		if n.data != nil {
			errs = append(errs, n.data.heal(ctx))
		}
		n.mu.Unlock()
	}
	if c.isolated != nil {
		errs = append(errs, c.healBus(ctx, c.isolated))
	}
	return errors.Join(errs...)
}

// InternalFaults describes the faults on the links between nodes, sorted
// by node: "n1: bus isolated", "n2: replication cut" (faults of the
// clients' links are in Proxies().Faulty()). Empty when there are none.
func (c *Cluster) InternalFaults() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.all {
		n.mu.Lock()
		if c.isolated == n {
			out = append(out, n.Name()+": bus isolated")
		}
		if n.data.faulty() {
			out = append(out, n.Name()+": replication cut")
		}
		n.mu.Unlock()
	}
	return out
}

// Isolated is the node whose bus is isolated, or "".
func (c *Cluster) Isolated() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isolated == nil {
		return ""
	}
	return c.isolated.Name()
}
