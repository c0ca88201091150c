// Package docker is the docker provider: one Redis container per node,
// reached by clients only through the proxies of the cluster core.
package docker

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/testcontainers/testcontainers-go"

	"github.com/lockstorm/lockstorm/cluster"
)

// Config describes a cluster of Redis containers.
type Config struct {
	// Nodes is the number of Redis containers, named n1..nN; at least 1.
	Nodes int
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// Persistence is every node's persistence mode; empty means PersistNone.
	Persistence cluster.Persistence
	// Image is the Redis image; empty means cluster.DefaultDockerImage.
	// Its entrypoint must accept redis-server options as arguments (the
	// official image and lockstorm/redis:7 both do). It is pulled only if
	// it is not present locally.
	Image string
	// Network names the run's private network, on which the nodes reach
	// each other by their names (n1, n2, ...); empty means
	// lockstorm-<pid>-<n>. It must not exist yet.
	Network string
	// KeepContainers leaves the (killed) containers and the networks in
	// place after Stop, for docker logs and docker inspect. They carry the
	// label lockstorm.keep=true, so later runs do not sweep them; remove
	// them with: docker rm -f $(docker ps -aq -f label=lockstorm.keep=true).
	KeepContainers bool
	// Log receives testcontainers' log lines; nil discards them.
	Log io.Writer

	// Replica gives node n1 an asynchronous replica, a container named
	// n1-replica (not one of the nodes) replicating from n1 over the
	// private network, so that the cluster offers cluster.Replicated (see
	// pair.go).
	Replica bool
	// ReplicaOptions are the replica's promotion and sentinels (only with
	// Replica): sentinel containers of the same image (redis-server
	// --sentinel); auto promotion means sentinel.
	cluster.ReplicaOptions
}

// Cluster is the docker provider's cluster: one Redis container per node,
// reached by clients only through the embedded toxiproxy (see
// cluster.Proxies), which dials each container's port 6379 as published
// on 127.0.0.1 of this host. The containers share a private internal
// network (for replication links; see DisconnectNode) and are published
// through a second network that forbids traffic between containers. It
// implements cluster.Cluster.
//
// Ryuk (testcontainers' garbage collector) is disabled; instead every
// container and network is labelled lockstorm.run=<pid>-<n> and
// lockstorm.host=<hostname>, removed by Stop (and so by cluster.StopAll
// and cluster.HandleSignals), and swept by a later Start on the same host
// once the process that created it is gone.
type Cluster struct {
	*cluster.Core[*node]
	cfg    Config
	run    string // <pid>-<n>
	cli    *testcontainers.DockerClient
	logger tcLogger
	nets   dockerNets
	rep    *pair // nil without Config.Replica
}

// runSeq numbers the docker runs of this process.
var runSeq atomic.Int64

// Start creates the run's networks and cfg.Nodes Redis containers, each
// publishing port 6379 on a free 127.0.0.1 port, and one proxy per
// (client, node) link, and returns when every node answers. On error
// nothing is left behind. It returns an error wrapping ErrNoDaemon when no daemon answers.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := cluster.CheckNodes(cfg.Nodes, &cfg.Persistence); err != nil {
		return nil, err
	}
	cfg.Clients = slices.Clone(cfg.Clients)
	if cfg.Image == "" {
		cfg.Image = cluster.DefaultDockerImage
	}
	if err := checkReplica(&cfg); err != nil {
		return nil, err
	}
	run := fmt.Sprintf("%d-%d", os.Getpid(), runSeq.Add(1))
	if cfg.Network == "" {
		cfg.Network = "lockstorm-" + run
	}
	d := &Cluster{cfg: cfg, run: run, logger: newTCLogger(cfg.Log)}
	var err error
	if d.Core, err = cluster.NewCore[*node](cfg.Clients, lifecycle{d}); err != nil {
		return nil, err
	}
	if d.cli, err = dockerClient(ctx, d.logger); err != nil {
		_ = d.Stop()
		return nil, err
	}
	sweepDocker(ctx, d.cli)
	if err := d.start(ctx); err != nil {
		_ = d.Stop()
		return nil, err
	}
	return d, nil
}

// start creates the networks, then the nodes in parallel, then the proxies.
func (d *Cluster) start(ctx context.Context) error {
	nets, err := createNetworks(ctx, d.cli, d.cfg.Network, d.labels(""))
	d.nets = nets // whatever was created is removed by Stop
	if err != nil {
		return err
	}
	var nodes []*node
	for i := 1; i <= d.cfg.Nodes; i++ {
		nodes = append(nodes, d.newContainer("n"+strconv.Itoa(i), nil))
	}
	if err := cluster.StartNodes(ctx, d.Core, nodes); err != nil {
		return err
	}
	if d.cfg.Replica {
		return d.startReplica(ctx, nodes[0])
	}
	return nil
}

// labels are put on every container and network of the run.
func (d *Cluster) labels(node string) map[string]string {
	l := map[string]string{labelRun: d.run, labelHost: hostname()}
	if node != "" {
		l[labelNode] = node
	}
	if d.cfg.KeepContainers {
		l[labelKeep] = "true"
	}
	return l
}

// lifecycle is what the docker provider gives the cluster core.
type lifecycle struct{ d *Cluster }

// Start runs a container (see node.create).
func (lifecycle) Start(ctx context.Context, n *node) error { return n.create(ctx) }

// HealNode reconnects a node to the private network.
func (lifecycle) HealNode(ctx context.Context, n *node) error { return n.reconnect(ctx) }

// Release removes a container, or with KeepContainers kills it.
func (r lifecycle) Release(ctx context.Context, n *node) error {
	if r.d.cfg.KeepContainers {
		return n.Kill(ctx)
	}
	if n.id == "" {
		return nil
	}
	return removeContainer(ctx, r.d.cli, n.id)
}

// Close removes both networks (unless KeepContainers) and closes the
// Docker client.
func (r lifecycle) Close(ctx context.Context) error {
	if r.d.cli == nil {
		return nil
	}
	var err error
	if !r.d.cfg.KeepContainers {
		err = r.d.nets.remove(ctx, r.d.cli)
	}
	if cerr := r.d.cli.Close(); err == nil {
		err = cerr
	}
	return err
}

// Image is the Redis image the nodes run.
func (d *Cluster) Image() string { return d.cfg.Image }

// Persistence is the nodes' persistence mode.
func (d *Cluster) Persistence() cluster.Persistence { return d.cfg.Persistence }

// Network is the name of the run's private network.
func (d *Cluster) Network() string { return d.cfg.Network }

// Run is the value of the lockstorm.run label on the run's containers and
// networks ("<pid>-<n>").
func (d *Cluster) Run() string { return d.run }

// ContainerID is the node's container id, or "" for an unknown node.
func (d *Cluster) ContainerID(name string) string {
	n, err := cluster.NodeOf(d.Core, name)
	if err != nil {
		return ""
	}
	return n.id
}

// Running reports whether the node's container is running or paused (not
// killed).
func (d *Cluster) Running(name string) bool {
	st, err := d.State(name)
	return err == nil && st != cluster.NodeDown
}

// DisconnectNode disconnects the node's container from the run's private
// network: other containers can no longer reach it (a replication link
// through the network breaks), while clients still reach it through the
// proxies and the published port. Disconnecting twice does nothing.
func (d *Cluster) DisconnectNode(ctx context.Context, name string) error {
	return cluster.Control(d.Core, name, func(n *node) error { return n.disconnect(ctx) })
}

// ReconnectNode connects the node back to the private network under its
// name; the replica then follows it again if it is the primary.
// Reconnecting a connected node does nothing.
func (d *Cluster) ReconnectNode(ctx context.Context, name string) error {
	return cluster.Control(d.Core, name, func(n *node) error {
		was := n.disconnected
		if err := n.reconnect(ctx); err != nil || !was {
			return err
		}
		return cluster.FollowPrimary(ctx, d.Core, n)
	})
}
