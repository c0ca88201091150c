package cluster

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// PairLink is what differs between providers in a master-replica pair:
// where its ends are, and its replication link (a proxy locally, the
// private network under docker). Core calls it with the lock held.
type PairLink interface {
	// Ends are the pair's current addresses (the primary's peer address
	// may change when it restarts or reconnects).
	Ends(ctx context.Context) (PairEnds, error)
	// Cut drops all data between the primary and the replica side.
	Cut(ctx context.Context) error
	// Heal removes the cut and any latency.
	Heal(ctx context.Context) error
	// Delay adds latency to the link (or wraps ErrUnsupported).
	Delay(ctx context.Context, l Latency) error
	// Faulty reports whether the link carries a fault.
	Faulty() bool
	// Close ends the link at Stop.
	Close() error
}

// PairSpec describes a replicated pair to StartPair.
type PairSpec[P Process] struct {
	// Replica is the primary's replica, not started yet and not a node.
	Replica P
	// Link is the pair's replication link.
	Link PairLink
	// Options are the replica settings, checked, with the promotion
	// resolved (PromoteSentinel or PromoteManual).
	Options ReplicaOptions
	// NewSentinel describes sentinel i (1, 2, ...), named s<i>, that
	// monitors the master at monitor ("host:port", the replication
	// link's end) with quorum, with the lines of
	// redisadmin.SentinelConfig; StartPair starts it.
	NewSentinel func(i int, monitor string, quorum int) (P, error)
	// Refollow says the replica must be pointed at the primary again when
	// it comes back outside a failover (its address may have changed,
	// or its replica's connection be silently dead): true under docker.
	Refollow bool
}

// replicaPair is a Core's master-replica pair: the primary node (n1),
// its replica and sentinels, the replication link, and the failover
// state. It implements pairOps with the primary's Process.
type replicaPair[P Process] struct {
	*pairState
	primary       P
	replica       P
	sentinelProcs []P
	link          PairLink
	refollow      bool
	lastLink      string // the primary's link address the replica was last told
}

// StartPair gives c's first node a replica and, with sentinel promotion,
// sentinels, and waits until the replica is in sync and the sentinels see
// both. On error Stop removes whatever was started.
func StartPair[P Process](ctx context.Context, c *Core[P], s PairSpec[P]) error {
	p := &replicaPair[P]{
		pairState: newPairState(c.nodes[0].Name(), c.proxies, s.Options.Promotion, s.Options.SentinelDownAfter),
		primary:   c.nodes[0],
		replica:   s.Replica,
		link:      s.Link,
		refollow:  s.Refollow,
	}
	c.pair = p
	if err := c.rt.Start(ctx, p.replica); err != nil {
		return err
	}
	e, err := p.ends(ctx)
	if err != nil {
		return err
	}
	if err := attach(ctx, e); err != nil {
		return err
	}
	if p.promotion != PromoteSentinel {
		return nil
	}
	n, quorum := sentinelCount(s.Options.Sentinels)
	p.quorum = quorum
	for i := 1; i <= n; i++ {
		sp, err := s.NewSentinel(i, e.PrimaryLink, quorum)
		if err != nil {
			return err
		}
		p.sentinelProcs = append(p.sentinelProcs, sp)
	}
	if err := c.startAll(ctx, p.sentinelProcs); err != nil {
		return err
	}
	for _, sp := range p.sentinelProcs {
		p.sentinels = append(p.sentinels, redisadmin.Sentinel{Name: sp.Name(), Addr: sp.Addr(), Log: sp.LogTail})
	}
	return redisadmin.SentinelsReady(ctx, p.sentinels, e.ReplicaPeer)
}

// sentinelCount is the number of sentinels to run for a configured count
// (0 means 1) and their quorum, a majority.
func sentinelCount(n int) (count, quorum int) {
	if n == 0 {
		n = 1
	}
	return n, n/2 + 1
}

func (p *replicaPair[P]) ends(ctx context.Context) (PairEnds, error) {
	e, err := p.link.Ends(ctx)
	if err == nil {
		p.lastLink = e.PrimaryLink
	}
	return e, err
}

func (p *replicaPair[P]) killPrimary(ctx context.Context) error { return p.primary.Kill(ctx) }

func (p *replicaPair[P]) primaryDown() bool { return p.primary.State() == NodeDown }

func (p *replicaPair[P]) restartPrimary(ctx context.Context) error { return p.primary.Restart(ctx) }

func (p *replicaPair[P]) cutLink(ctx context.Context) error { return p.link.Cut(ctx) }

func (p *replicaPair[P]) healLink(ctx context.Context) error { return p.link.Heal(ctx) }

// follow points the replica and the sentinels at the primary again after
// it came back (restarted or reconnected), outside a failover, when the
// provider asks for it (PairSpec.Refollow). If the primary's address did
// not change, the replica's connection may be dead without knowing it (a
// disconnect drops packets silently), so it is closed and the replica
// reconnects at once. Called with the lock held.
func (p *replicaPair[P]) follow(ctx context.Context) error {
	if !p.refollow || p.dirty || p.primaryDown() || p.link.Faulty() {
		return nil
	}
	old := p.lastLink
	e, err := p.ends(ctx)
	if err != nil {
		return err
	}
	if e.PrimaryLink == old {
		err := redisadmin.Do(e.ReplicaOwn, func(rc *redis.Client) error {
			return rc.Do(ctx, "CLIENT", "KILL", "TYPE", "master").Err()
		})
		if err != nil {
			return fmt.Errorf("cluster: replica: %w", err)
		}
	} else if len(p.sentinels) > 0 {
		if err := redisadmin.SentinelRemove(ctx, p.sentinels); err != nil {
			return err
		}
		if err := redisadmin.SentinelMonitor(ctx, p.sentinels, e.PrimaryLink, p.quorum); err != nil {
			return err
		}
	}
	return attach(ctx, e)
}

// FollowPrimary lets c's replica (and the sentinels) follow the primary
// again when n is the primary and came back (see PairSpec.Refollow). Call
// it with c's lock held (inside Control).
func FollowPrimary[P Process](ctx context.Context, c *Core[P], n P) error {
	if c.pair == nil || n.Name() != c.pair.primary.Name() {
		return nil
	}
	return c.pair.follow(ctx)
}

// replicated returns the pair or an error wrapping ErrUnsupported.
func (c *Core[P]) replicated() (*replicaPair[P], error) {
	if c.pair == nil {
		return nil, fmt.Errorf("%w: the cluster was started without a replica", ErrUnsupported)
	}
	return c.pair, nil
}

// onPair runs f on the pair with the lock held, unless stopped.
func (c *Core[P]) onPair(f func(*replicaPair[P]) error) error {
	p, err := c.replicated()
	if err != nil {
		return err
	}
	return Control(c, p.primary.Name(), func(P) error { return f(p) })
}

// Primary is "n1" when the cluster runs a replica, else "".
func (c *Core[P]) Primary() string {
	if c.pair == nil {
		return ""
	}
	return c.pair.primary.Name()
}

// Promotion is how Failover promotes the replica ("" without a replica).
func (c *Core[P]) Promotion() Promotion {
	if c.pair == nil {
		return ""
	}
	return c.pair.promotion
}

// ReplicaAddr is the replica's own address.
func (c *Core[P]) ReplicaAddr() (string, error) {
	p, err := c.replicated()
	if err != nil {
		return "", err
	}
	return p.replica.Addr(), nil
}

// MasterAddr is the own address of the process the clients' proxies to
// the primary lead to.
func (c *Core[P]) MasterAddr() (string, error) {
	p, err := c.replicated()
	if err != nil {
		return "", err
	}
	return p.masterOwn(PairEnds{PrimaryOwn: p.primary.Addr(), ReplicaOwn: p.replica.Addr()}), nil
}

// SentinelAddrs lists the sentinels' own addresses (none with manual
// promotion).
func (c *Core[P]) SentinelAddrs() []string {
	if c.pair == nil {
		return nil
	}
	out := make([]string, len(c.pair.sentinels))
	for i, s := range c.pair.sentinels {
		out[i] = s.Addr
	}
	return out
}

// ReplicationFaulty reports whether the replication link carries a fault.
func (c *Core[P]) ReplicationFaulty() bool {
	if c.pair == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pair.link.Faulty()
}

// CutReplication drops all data on the replication link until healed:
// the replica and the sentinels lose the primary, clients do not.
func (c *Core[P]) CutReplication(ctx context.Context) error {
	return c.onPair(func(p *replicaPair[P]) error { return p.link.Cut(ctx) })
}

// HealReplication removes the cut and latency from the replication link
// and lets the replica follow the primary again (see PairSpec.Refollow).
func (c *Core[P]) HealReplication(ctx context.Context) error {
	return c.onPair(func(p *replicaPair[P]) error {
		if err := p.link.Heal(ctx); err != nil {
			return err
		}
		return p.follow(ctx)
	})
}

// DelayReplication adds latency to the replication link.
func (c *Core[P]) DelayReplication(ctx context.Context, l Latency) error {
	return c.onPair(func(p *replicaPair[P]) error { return p.link.Delay(ctx, l) })
}

// Failover loses the master (a kill, or a cut of the replication link),
// promotes the replica (by sentinel or REPLICAOF NO ONE) and retargets
// the clients' proxies to it. See Replicated.
func (c *Core[P]) Failover(ctx context.Context, opt FailoverOptions) (FailoverResult, error) {
	p, err := c.replicated()
	if err != nil {
		return FailoverResult{}, err
	}
	return p.runFailover(ctx, &c.mu, &c.stopped, p, opt)
}

// Failback undoes a failover (see Replicated).
func (c *Core[P]) Failback(ctx context.Context) error {
	p, err := c.replicated()
	if err != nil {
		return err
	}
	return p.runFailback(ctx, &c.mu, &c.stopped, p)
}
