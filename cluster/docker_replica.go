package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/moby/client"
	"github.com/redis/go-redis/v9"
)

// dockerPair is the docker provider's master-replica pair: the primary
// node's container, a replica container (not a Cluster node) replicating
// from it over the run's private network, and the sentinel containers if
// any, which watch it over that network too. The replication link is the
// private network itself: cutting it disconnects the primary from the
// network (DisconnectNode), while clients still reach it through its
// published port. Peers are addressed by private IP, not by name: a name
// that no longer resolves (the primary disconnected) makes Docker's
// embedded DNS stall each lookup for seconds, and Redis resolves in its
// main thread, so a replica or sentinel would freeze. Container control
// happens with Docker.mu held; the failover logic is pairState's.
type dockerPair struct {
	*pairState
	d             *Docker
	primary       *dockerNode
	replica       *dockerNode
	sentinelNodes []*dockerNode

	// Guarded by Docker.mu: the primary's last known private address, the
	// one the replica and the sentinels were last told; and the replica's.
	primaryIP, replicaIP string
}

var _ Replicated = (*Docker)(nil)

// checkDockerReplica validates cfg's replica settings; auto promotion
// means sentinel, which the image's redis-server runs (--sentinel).
func checkDockerReplica(cfg *DockerConfig) error {
	if !cfg.Replica {
		return nil
	}
	if err := checkReplicaConfig(cfg.Sentinels, cfg.SentinelDownAfter); err != nil {
		return err
	}
	switch cfg.Promotion {
	case PromoteAuto:
		cfg.Promotion = PromoteSentinel
	case PromoteSentinel, PromoteManual:
	default:
		return fmt.Errorf("cluster: promotion must be sentinel or manual, got %q", cfg.Promotion)
	}
	return nil
}

// startReplica starts the replica of n1 and the sentinels, and waits until
// the replica is in sync and the sentinels see both. Called by start; on
// error Stop removes whatever was created.
func (d *Docker) startReplica(ctx context.Context) error {
	primary := d.nodes[0]
	dp := &dockerPair{
		pairState: newPairState(primary.name, d.proxies, d.cfg.Promotion, d.cfg.SentinelDownAfter),
		d:         d,
		primary:   primary,
		replica:   &dockerNode{name: replicaName(primary.name), state: nodeDown},
	}
	d.rep = dp
	if err := d.create(ctx, dp.replica); err != nil {
		return err
	}
	e, err := dp.ends(ctx)
	if err != nil {
		return err
	}
	if err := attach(ctx, e); err != nil {
		return err
	}
	if dp.promotion != PromoteSentinel {
		return nil
	}
	n, quorum := sentinelCount(d.cfg.Sentinels)
	dp.quorum = quorum
	var b strings.Builder
	b.WriteString("port 6379\nprotected-mode no\n")
	writeSentinelMonitor(&b, dp.primaryIP, 6379, quorum)
	for i := 1; i <= n; i++ {
		dp.sentinelNodes = append(dp.sentinelNodes,
			&dockerNode{name: "s" + strconv.Itoa(i), state: nodeDown, sentinelConf: []byte(b.String())})
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range dp.sentinelNodes {
		wg.Go(func() { errs[i] = d.create(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, s := range dp.sentinelNodes {
		dp.sentinels = append(dp.sentinels, sentinelRef{name: s.name, addr: s.addr(), log: func() string { return d.logTail(s) }})
	}
	return sentinelsReady(ctx, dp.sentinels, e.replicaPeer)
}

// privateIP is the container's address on the run's private network, or
// "" when it has none (disconnected or not running).
func (d *Docker) privateIP(ctx context.Context, n *dockerNode) (string, error) {
	res, err := d.cli.ContainerInspect(ctx, n.id, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("cluster: inspect %s: %w", n.name, err)
	}
	if res.Container.NetworkSettings == nil {
		return "", nil
	}
	ep, ok := res.Container.NetworkSettings.Networks[d.nets.priv]
	if !ok || ep == nil || !ep.IPAddress.IsValid() {
		return "", nil
	}
	return ep.IPAddress.String(), nil
}

// ends are the pair's addresses: own addresses are the published ports;
// between themselves (and for the sentinels) the processes use their
// private addresses, the primary's last known one while it has none.
func (dp *dockerPair) ends(ctx context.Context) (pairEnds, error) {
	for _, x := range []struct {
		n  *dockerNode
		ip *string
	}{{dp.primary, &dp.primaryIP}, {dp.replica, &dp.replicaIP}} {
		ip, err := dp.d.privateIP(ctx, x.n)
		if err != nil {
			return pairEnds{}, err
		}
		if ip != "" {
			*x.ip = ip
		}
		if *x.ip == "" {
			return pairEnds{}, fmt.Errorf("cluster: %s has no address on %s", x.n.name, dp.d.nets.priv)
		}
	}
	p := net.JoinHostPort(dp.primaryIP, "6379")
	return pairEnds{primaryOwn: dp.primary.addr(), replicaOwn: dp.replica.addr(),
		primaryLink: p, primaryPeer: p, replicaPeer: net.JoinHostPort(dp.replicaIP, "6379")}, nil
}

func (dp *dockerPair) killPrimary(ctx context.Context) error { return dp.d.kill(ctx, dp.primary) }

func (dp *dockerPair) primaryDown() bool { return dp.primary.state == nodeDown }

func (dp *dockerPair) restartPrimary(ctx context.Context) error { return dp.d.restart(ctx, dp.primary) }

func (dp *dockerPair) cutLink(ctx context.Context) error { return dp.d.disconnect(ctx, dp.primary) }

func (dp *dockerPair) healLink(ctx context.Context) error { return dp.d.reconnect(ctx, dp.primary) }

// follow points the replica and the sentinels at the primary again after
// it came back (restarted or reconnected), outside a failover. Its address
// may have changed; if not, the replica's connection may be dead without
// knowing it (a disconnect drops packets silently), so it is closed and
// the replica reconnects at once. Called with Docker.mu held.
func (dp *dockerPair) follow(ctx context.Context) error {
	if dp.dirty || dp.primary.state == nodeDown || dp.primary.disconnected {
		return nil
	}
	old := dp.primaryIP
	e, err := dp.ends(ctx)
	if err != nil {
		return err
	}
	if dp.primaryIP == old {
		err := adminDo(e.replicaOwn, func(rc *redis.Client) error {
			return rc.Do(ctx, "CLIENT", "KILL", "TYPE", "master").Err()
		})
		if err != nil {
			return fmt.Errorf("cluster: replica: %w", err)
		}
	} else if len(dp.sentinels) > 0 {
		if err := sentinelRemove(ctx, dp.sentinels); err != nil {
			return err
		}
		if err := sentinelMonitor(ctx, dp.sentinels, e.primaryLink, dp.quorum); err != nil {
			return err
		}
	}
	return attach(ctx, e)
}

// containers are the pair's containers other than the primary: the
// sentinels, then the replica.
func (dp *dockerPair) containers() []*dockerNode {
	return append(slices.Clone(dp.sentinelNodes), dp.replica)
}

// replicated returns the pair or an error wrapping ErrUnsupported.
func (d *Docker) replicated() (*dockerPair, error) {
	if d.rep == nil {
		return nil, fmt.Errorf("%w: the cluster was started without a replica (DockerConfig.Replica)", ErrUnsupported)
	}
	return d.rep, nil
}

// Primary is "n1" when the cluster runs a replica, else "".
func (d *Docker) Primary() string {
	if d.rep == nil {
		return ""
	}
	return d.rep.primary.name
}

// Promotion is how Failover promotes the replica ("" without a replica).
func (d *Docker) Promotion() Promotion {
	if d.rep == nil {
		return ""
	}
	return d.rep.promotion
}

// ReplicaAddr is the replica container's published address.
func (d *Docker) ReplicaAddr() (string, error) {
	dp, err := d.replicated()
	if err != nil {
		return "", err
	}
	return dp.replica.addr(), nil
}

// MasterAddr is the published address of the container the clients'
// proxies to the primary lead to.
func (d *Docker) MasterAddr() (string, error) {
	dp, err := d.replicated()
	if err != nil {
		return "", err
	}
	return dp.masterOwn(pairEnds{primaryOwn: dp.primary.addr(), replicaOwn: dp.replica.addr()}), nil
}

// SentinelAddrs lists the sentinel containers' published addresses (none
// with manual promotion).
func (d *Docker) SentinelAddrs() []string {
	if d.rep == nil {
		return nil
	}
	out := make([]string, len(d.rep.sentinels))
	for i, s := range d.rep.sentinels {
		out[i] = s.addr
	}
	return out
}

// ReplicaContainerID is the replica's container id ("" without a replica).
func (d *Docker) ReplicaContainerID() string {
	if d.rep == nil {
		return ""
	}
	return d.rep.replica.id
}

// ReplicationFaulty reports whether the replication link is cut (the
// primary is off the private network).
func (d *Docker) ReplicationFaulty() bool {
	if d.rep == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rep.primary.disconnected
}

// CutReplication disconnects the primary from the private network (see
// DisconnectNode): the replica and the sentinels lose it, clients do not.
func (d *Docker) CutReplication(ctx context.Context) error {
	dp, err := d.replicated()
	if err != nil {
		return err
	}
	return d.control(dp.primary.name, func(n *dockerNode) error { return d.disconnect(ctx, n) })
}

// HealReplication reconnects the primary and makes the replica resume
// replicating from it at once.
func (d *Docker) HealReplication(ctx context.Context) error {
	dp, err := d.replicated()
	if err != nil {
		return err
	}
	return d.control(dp.primary.name, func(n *dockerNode) error {
		if err := d.reconnect(ctx, n); err != nil {
			return err
		}
		return dp.follow(ctx)
	})
}

// DelayReplication is not supported by the docker provider: the
// replication link is the container network, and the image has no tc to
// shape it. It returns an error wrapping ErrUnsupported.
func (d *Docker) DelayReplication(ctx context.Context, l Latency) error {
	if _, err := d.replicated(); err != nil {
		return err
	}
	return fmt.Errorf("%w: the docker provider cannot delay the replication link", ErrUnsupported)
}

// Failover loses the master (docker kill, or a disconnect from the
// private network), promotes the replica (by sentinel or REPLICAOF NO
// ONE) and retargets the clients' proxies to its published port. See
// Replicated.
func (d *Docker) Failover(ctx context.Context, opt FailoverOptions) (FailoverResult, error) {
	dp, err := d.replicated()
	if err != nil {
		return FailoverResult{}, err
	}
	return dp.runFailover(ctx, &d.mu, &d.stopped, dp, opt)
}

// Failback undoes a failover (see Replicated).
func (d *Docker) Failback(ctx context.Context) error {
	dp, err := d.replicated()
	if err != nil {
		return err
	}
	return dp.runFailback(ctx, &d.mu, &d.stopped, dp)
}
