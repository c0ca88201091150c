package docker

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/moby/moby/client"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// pair is the docker provider's side of the master-replica pair: the
// primary node's container, a replica container (not a cluster node)
// replicating from it over the run's private network, and the sentinel
// containers if any, which watch it over that network too. The
// replication link is the private network itself: cutting it disconnects
// the primary from the network (DisconnectNode), while clients still
// reach it through its published port. Peers are addressed by private IP,
// not by name: a name that no longer resolves (the primary disconnected)
// makes Docker's embedded DNS stall each lookup for seconds, and Redis
// resolves in its main thread, so a replica or sentinel would freeze. The
// cluster core runs the failover, with its lock held.
type pair struct {
	d       *Cluster
	primary *node
	replica *node

	// Guarded by the cluster's lock: the primary's last known private
	// address, the one the replica and the sentinels were last told; and
	// the replica's.
	primaryIP, replicaIP string
}

var _ cluster.Replicated = (*Cluster)(nil)

// checkReplica validates cfg's replica settings; auto promotion means
// sentinel, which the image's redis-server runs (--sentinel).
func checkReplica(cfg *Config) error {
	if !cfg.Replica {
		return nil
	}
	if err := cfg.ReplicaOptions.Check(); err != nil {
		return err
	}
	if cfg.Promotion == cluster.PromoteAuto {
		cfg.Promotion = cluster.PromoteSentinel
	}
	return nil
}

// startReplica starts the replica of the primary and the sentinels (see
// cluster.StartPair). On error Stop removes whatever was created.
func (d *Cluster) startReplica(ctx context.Context, primary *node) error {
	dp := &pair{d: d, primary: primary, replica: d.newContainer(primary.name+"-replica", nil)}
	d.rep = dp
	return cluster.StartPair(ctx, d.Core, cluster.PairSpec[*node]{
		Replica:     dp.replica,
		Link:        dp,
		Options:     d.cfg.ReplicaOptions,
		NewSentinel: d.newSentinel,
		Refollow:    true,
	})
}

// newSentinel describes sentinel container i (s1, s2, ...): the image's
// redis-server with --sentinel, monitoring the master at monitor.
func (d *Cluster) newSentinel(i int, monitor string, quorum int) (*node, error) {
	conf := "port 6379\nprotected-mode no\n" + redisadmin.SentinelConfig(monitor, quorum)
	return d.newContainer("s"+strconv.Itoa(i), []byte(conf)), nil
}

// privateIP is the container's address on the run's private network, or
// "" when it has none (disconnected or not running).
func (d *Cluster) privateIP(ctx context.Context, n *node) (string, error) {
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

// Ends are the pair's addresses: own addresses are the published ports;
// between themselves (and for the sentinels) the processes use their
// private addresses, the primary's last known one while it has none.
func (dp *pair) Ends(ctx context.Context) (cluster.PairEnds, error) {
	for _, x := range []struct {
		n  *node
		ip *string
	}{{dp.primary, &dp.primaryIP}, {dp.replica, &dp.replicaIP}} {
		ip, err := dp.d.privateIP(ctx, x.n)
		if err != nil {
			return cluster.PairEnds{}, err
		}
		if ip != "" {
			*x.ip = ip
		}
		if *x.ip == "" {
			return cluster.PairEnds{}, fmt.Errorf("cluster: %s has no address on %s", x.n.name, dp.d.nets.priv)
		}
	}
	p := net.JoinHostPort(dp.primaryIP, "6379")
	return cluster.PairEnds{PrimaryOwn: dp.primary.Addr(), ReplicaOwn: dp.replica.Addr(),
		PrimaryLink: p, PrimaryPeer: p, ReplicaPeer: net.JoinHostPort(dp.replicaIP, "6379")}, nil
}

// Cut disconnects the primary from the private network: the replica and
// the sentinels lose it, clients do not.
func (dp *pair) Cut(ctx context.Context) error { return dp.primary.disconnect(ctx) }

// Heal reconnects the primary.
func (dp *pair) Heal(ctx context.Context) error { return dp.primary.reconnect(ctx) }

// Delay is not supported by the docker provider: the replication link is
// the container network, and the image has no tc to shape it.
func (dp *pair) Delay(context.Context, cluster.Latency) error {
	return fmt.Errorf("%w: the docker provider cannot delay the replication link", cluster.ErrUnsupported)
}

// Faulty reports whether the replication link is cut (the primary is off
// the private network).
func (dp *pair) Faulty() bool { return dp.primary.disconnected }

// Close has nothing to close: the network goes with the run.
func (dp *pair) Close() error { return nil }

// ReplicaContainerID is the replica's container id ("" without a replica).
func (d *Cluster) ReplicaContainerID() string {
	if d.rep == nil {
		return ""
	}
	return d.rep.replica.id
}
