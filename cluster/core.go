package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// NodeState is what a provider's Redis process (or container) is doing.
type NodeState int

// Node states.
const (
	NodeRunning NodeState = iota
	NodePaused            // stopped (SIGSTOP, docker pause); connections stay open
	NodeDown              // killed, exited, or never started
)

// Process is one Redis server or sentinel that a provider runs: a
// process on this machine, or a container. Only how to start, pause,
// kill and restart it differs between providers; Core does the rest.
// Core calls its methods with the cluster's lock held.
type Process interface {
	// Name is the node's name (n1, n1-replica, s1, ...).
	Name() string
	// Addr is its own address on this host, bypassing every proxy.
	Addr() string
	// State says whether it runs, is paused or is down.
	State() NodeState
	// Pause stops it; pausing a paused process does nothing, a down one
	// is an error.
	Pause(ctx context.Context) error
	// Resume continues a paused process.
	Resume(ctx context.Context) error
	// Kill ends it abruptly (even when paused); killing a down process
	// does nothing.
	Kill(ctx context.Context) error
	// Restart starts a down process again on the same address with the
	// same data directory, and waits until it answers; a running one is
	// an error.
	Restart(ctx context.Context) error
	// LogTail is the end of its log, for error messages.
	LogTail() string
}

// Runtime is what a provider supplies to Core besides its processes.
type Runtime[P Process] interface {
	// Start starts a new process (a node, the replica or a sentinel) and
	// waits until it answers.
	Start(ctx context.Context, p P) error
	// HealNode removes a provider's own fault from a node at HealAll
	// (the docker provider reconnects it to its private network).
	HealNode(ctx context.Context, p P) error
	// Release ends a process for good at Stop.
	Release(ctx context.Context, p P) error
	// Close removes the rest of the run at Stop, once every process and
	// proxy is gone (the run directory, the networks).
	Close(ctx context.Context) error
}

// Core is the shared lifecycle of the providers that run their own Redis
// nodes (local processes, docker containers): the node table, the
// clients' proxies and link faults, process faults, HealAll, Stop, and
// with a replica (StartPair) the Replicated methods. It implements
// Cluster and Replicated; a provider embeds it.
type Core[P Process] struct {
	LinkFaults // clients, proxy addresses and link faults
	nodeTable[P]
	rt   Runtime[P]
	pair *replicaPair[P] // nil without a replica

	mu      sync.Mutex // serialises process control (pause, kill, restart, failover, stop)
	stopped bool
	stopErr error
}

var (
	_ Cluster    = (*Core[Process])(nil)
	_ Replicated = (*Core[Process])(nil)
)

// stopTimeout bounds the removal of every process, container and network.
const stopTimeout = 60 * time.Second

// NewCore creates the proxies of the clients (names checked, "c1" when
// none) and registers the cluster for StopAll; the provider then starts
// its nodes with StartNodes and calls Stop if anything fails.
func NewCore[P Process](clients []string, rt Runtime[P]) (*Core[P], error) {
	if len(clients) == 0 {
		clients = []string{"c1"}
	}
	proxies, err := NewProxies(clients)
	if err != nil {
		return nil, err
	}
	c := &Core[P]{LinkFaults: LinkFaults{proxies}, nodeTable: nodeTable[P]{byName: map[string]P{}}, rt: rt}
	Track(c)
	return c, nil
}

// CheckNodes checks the settings every node-running provider shares and
// fills in their defaults: at least one node, persistence none.
func CheckNodes(nodes int, persistence *Persistence) error {
	if nodes < 1 {
		return fmt.Errorf("cluster: nodes must be at least 1, got %d", nodes)
	}
	if *persistence == "" {
		*persistence = PersistNone
	}
	if _, err := ParsePersistence(string(*persistence)); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// StartNodes adds the nodes (named n1..nN, in order) to c, starts them in
// parallel (each start mostly waits), then creates their proxies. It and
// the other functions of the provider kit (StartPair, Control,
// FollowPrimary, NodeOf) are functions, not methods, so that they are not
// promoted to the provider types that embed Core.
func StartNodes[P Process](ctx context.Context, c *Core[P], nodes []P) error {
	for _, n := range nodes {
		c.nodes = append(c.nodes, n)
		c.byName[n.Name()] = n
	}
	if err := c.startAll(ctx, nodes); err != nil {
		return err
	}
	for _, n := range nodes {
		if err := c.proxies.AddTarget(ctx, n.Name(), n.Addr()); err != nil {
			return err
		}
	}
	return nil
}

// startAll starts processes in parallel and joins their errors.
func (c *Core[P]) startAll(ctx context.Context, ps []P) error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { errs[i] = c.rt.Start(ctx, p) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// NodeOf finds one of c's nodes by name.
func NodeOf[P Process](c *Core[P], name string) (P, error) { return c.node(name) }

// State is a node's state as last driven (ErrUnknownNode for a bad name).
func (c *Core[P]) State(name string) (NodeState, error) {
	n, err := c.node(name)
	if err != nil {
		return NodeDown, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return n.State(), nil
}

// AddUpstream adds an extra target at addr, which must be on the loopback
// interface, with one proxy per client.
func (c *Core[P]) AddUpstream(ctx context.Context, name, addr string) error {
	return c.addUpstream(ctx, c.proxies, name, addr)
}

// Control runs f on c's named node with c's lock held, unless c is
// stopped: the path of every process fault.
func Control[P Process](c *Core[P], name string, f func(P) error) error {
	return c.control(&c.mu, &c.stopped, name, f)
}

// Pause stops the node (SIGSTOP, docker pause); connections stay open and
// commands wait. Pausing a paused node does nothing; a down node is an
// error.
func (c *Core[P]) Pause(ctx context.Context, name string) error {
	return Control(c, name, func(n P) error { return n.Pause(ctx) })
}

// Resume continues a paused node.
func (c *Core[P]) Resume(ctx context.Context, name string) error {
	return Control(c, name, func(n P) error { return n.Resume(ctx) })
}

// Kill ends the nodes with SIGKILL (even when paused), all at once, and
// waits until they are gone. Their proxies then refuse connections.
// Killing a down node does nothing.
func (c *Core[P]) Kill(ctx context.Context, names ...string) error {
	return c.controlAll(&c.mu, &c.stopped, names, func(n P) error { return n.Kill(ctx) })
}

// Restart starts down nodes again, all at once, on the same address,
// with the same persistence: with PersistNone a node comes back empty,
// with AOF it reloads its append-only file. A running node is an error.
// When a node is the primary of a replica, the replica follows it again
// (see FollowPrimary).
func (c *Core[P]) Restart(ctx context.Context, names ...string) error {
	return c.controlAll(&c.mu, &c.stopped, names, func(n P) error {
		if err := n.Restart(ctx); err != nil {
			return err
		}
		return FollowPrimary(ctx, c, n)
	})
}

// HealAll removes every link fault and the provider's own node faults,
// resumes paused nodes and restarts down ones. With a replica it first
// disarms the sentinels (so that none reacts to the nodes coming back)
// and heals the replication link, and last undoes a failover (Failback)
// or else lets the replica follow the primary again.
func (c *Core[P]) HealAll(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrStopped
	}
	var errs []error
	if c.pair != nil {
		errs = append(errs, c.pair.disarm(ctx), c.pair.link.Heal(ctx))
	}
	errs = append(errs, c.proxies.HealAll(ctx))
	for _, n := range c.nodes {
		errs = append(errs, c.rt.HealNode(ctx, n), revive(ctx, n))
	}
	if p := c.pair; p != nil {
		if p.replica.State() == NodePaused {
			errs = append(errs, p.replica.Resume(ctx))
		}
		if p.dirty {
			errs = append(errs, p.failback(ctx, p))
		} else {
			errs = append(errs, p.follow(ctx))
		}
	}
	return errors.Join(errs...)
}

// revive resumes a paused process and restarts a down one.
func revive[P Process](ctx context.Context, n P) error {
	switch n.State() {
	case NodePaused:
		return n.Resume(ctx)
	case NodeDown:
		return n.Restart(ctx)
	}
	return nil
}

// Stop heals the links, stops every proxy, ends every process (the
// sentinels first, so that none reacts, then the replica, then the
// nodes) and removes what the run created (Runtime.Close). Calling it
// again returns the first call's result.
func (c *Core[P]) Stop() error {
	if c.pair != nil {
		c.pair.cancel() // end a failover in flight, which holds mu
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return c.stopErr
	}
	c.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	// Resume paused nodes first, so that data held by a freeze can be
	// delivered when the proxies heal.
	for _, n := range c.nodes {
		if n.State() == NodePaused {
			_ = n.Resume(ctx)
		}
	}
	errs := []error{c.proxies.Close()}
	all := c.nodes
	if c.pair != nil {
		all = append(append(slices.Clone(c.pair.sentinelProcs), c.pair.replica), c.nodes...)
	}
	for _, n := range all {
		errs = append(errs, c.rt.Release(ctx, n))
	}
	if c.pair != nil {
		errs = append(errs, c.pair.link.Close())
	}
	errs = append(errs, c.rt.Close(ctx))
	Untrack(c)
	c.stopErr = errors.Join(errs...)
	return c.stopErr
}
