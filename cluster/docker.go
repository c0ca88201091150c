package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// DefaultDockerImage is the Redis image used when DockerConfig.Image is
// empty. Where no registry is reachable, build lockstorm/redis:7 with
// docker/build-redis-image.sh and use that instead.
const DefaultDockerImage = "redis:7"

// ErrNoDocker means no Docker daemon answered.
var ErrNoDocker = errors.New("cluster: no Docker daemon answers")

// DockerConfig describes a cluster of Redis containers.
type DockerConfig struct {
	// Nodes is the number of Redis containers, named n1..nN; at least 1.
	Nodes int
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// Persistence is every node's persistence mode; empty means PersistNone.
	Persistence Persistence
	// Image is the Redis image; empty means DefaultDockerImage. Its
	// entrypoint must accept redis-server options as arguments (the
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
	// private network, so that the cluster offers Replicated (see
	// docker_replica.go).
	Replica bool
	// Promotion is how a failover promotes the replica: PromoteSentinel
	// (sentinel containers of the same image, redis-server --sentinel),
	// PromoteManual, or PromoteAuto (default: sentinel). Only with Replica.
	Promotion Promotion
	// Sentinels is the number of sentinel containers when promotion is by
	// sentinel (default 1; 3 gives a quorum of 2).
	Sentinels int
	// SentinelDownAfter is the sentinels' down-after-milliseconds during a
	// failover (default DefaultSentinelDownAfter).
	SentinelDownAfter time.Duration
}

// Docker is the docker provider: one Redis container per node, reached by
// clients only through the embedded toxiproxy (see Proxies), which dials
// each container's port 6379 as published on 127.0.0.1 of this host. The
// containers share a private internal network (for replication links; see
// DisconnectNode) and are published through a second network that forbids
// traffic between containers. It implements Cluster.
//
// Ryuk (testcontainers' garbage collector) is disabled; instead every
// container and network is labelled lockstorm.run=<pid>-<n> and
// lockstorm.host=<hostname>, removed by Stop (and so by StopAll and
// HandleSignals), and swept by a later StartDocker on the same host once
// the process that created it is gone.
type Docker struct {
	proxyFaults
	cfg    DockerConfig
	run    string // <pid>-<n>
	cli    *testcontainers.DockerClient
	logger tcLogger
	nets   dockerNets
	nodeTable[*dockerNode]
	rep *dockerPair // nil without DockerConfig.Replica

	mu      sync.Mutex // serialises container control (pause, kill, restart, stop)
	stopped bool
	stopErr error
}

var _ Cluster = (*Docker)(nil)

// runSeq numbers the docker runs of this process.
var runSeq atomic.Int64

// dockerStopTimeout bounds the removal of every container and network.
const dockerStopTimeout = 60 * time.Second

// StartDocker creates the run's networks and cfg.Nodes Redis containers,
// each publishing port 6379 on a free 127.0.0.1 port, and one proxy per
// (client, node) link, and returns when every node answers. On error
// nothing is left behind. It returns ErrNoDocker when no daemon answers.
func StartDocker(ctx context.Context, cfg DockerConfig) (*Docker, error) {
	if cfg.Nodes < 1 {
		return nil, fmt.Errorf("cluster: nodes must be at least 1, got %d", cfg.Nodes)
	}
	if cfg.Persistence == "" {
		cfg.Persistence = PersistNone
	}
	if _, err := ParsePersistence(string(cfg.Persistence)); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if len(cfg.Clients) == 0 {
		cfg.Clients = []string{"c1"}
	}
	cfg.Clients = slices.Clone(cfg.Clients)
	if cfg.Image == "" {
		cfg.Image = DefaultDockerImage
	}
	if err := checkDockerReplica(&cfg); err != nil {
		return nil, err
	}
	run := fmt.Sprintf("%d-%d", os.Getpid(), runSeq.Add(1))
	if cfg.Network == "" {
		cfg.Network = runDirPrefix + run
	}
	proxies, err := NewProxies(cfg.Clients)
	if err != nil {
		return nil, err
	}
	logger := newTCLogger(cfg.Log)
	cli, err := dockerClient(ctx, logger)
	if err != nil {
		_ = proxies.Close()
		return nil, err
	}
	sweepDocker(ctx, cli)
	d := &Docker{
		proxyFaults: proxyFaults{proxies},
		cfg:         cfg,
		run:         run,
		cli:         cli,
		logger:      logger,
		nodeTable:   nodeTable[*dockerNode]{byName: map[string]*dockerNode{}},
	}
	register(d)
	if err := d.start(ctx); err != nil {
		_ = d.Stop()
		return nil, err
	}
	return d, nil
}

// start creates the networks, then the nodes in parallel, then the proxies.
func (d *Docker) start(ctx context.Context) error {
	nets, err := createNetworks(ctx, d.cli, d.cfg.Network, d.labels(""))
	d.nets = nets // whatever was created is removed by Stop
	if err != nil {
		return err
	}
	for i := 1; i <= d.cfg.Nodes; i++ {
		n := &dockerNode{name: "n" + strconv.Itoa(i), state: nodeDown}
		d.nodes = append(d.nodes, n)
		d.byName[n.name] = n
	}
	errs := make([]error, len(d.nodes))
	var wg sync.WaitGroup
	for i, n := range d.nodes {
		wg.Go(func() { errs[i] = d.create(ctx, n) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, n := range d.nodes {
		if err := d.proxies.AddTarget(ctx, n.name, n.addr()); err != nil {
			return err
		}
	}
	if d.cfg.Replica {
		return d.startReplica(ctx)
	}
	return nil
}

// labels are put on every container and network of the run.
func (d *Docker) labels(node string) map[string]string {
	l := map[string]string{labelRun: d.run, labelHost: hostname()}
	if node != "" {
		l[labelNode] = node
	}
	if d.cfg.KeepContainers {
		l[labelKeep] = "true"
	}
	return l
}

// Image is the Redis image the nodes run.
func (d *Docker) Image() string { return d.cfg.Image }

// Persistence is the nodes' persistence mode.
func (d *Docker) Persistence() Persistence { return d.cfg.Persistence }

// Network is the name of the run's private network.
func (d *Docker) Network() string { return d.cfg.Network }

// Run is the value of the lockstorm.run label on the run's containers and
// networks ("<pid>-<n>").
func (d *Docker) Run() string { return d.run }

// ContainerID is the node's container id, or "" for an unknown node.
func (d *Docker) ContainerID(name string) string {
	n, err := d.node(name)
	if err != nil {
		return ""
	}
	return n.id
}

// Running reports whether the node's container is running or paused (not
// killed).
func (d *Docker) Running(name string) bool {
	n, err := d.node(name)
	if err != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return n.state != nodeDown
}

// AddUpstream adds an extra target at addr, which must be on the loopback
// interface of this host, with one proxy per client.
func (d *Docker) AddUpstream(ctx context.Context, name, addr string) error {
	return d.addUpstream(ctx, d.proxies, name, addr)
}

// control runs f on a node unless the cluster is stopped.
func (d *Docker) control(name string, f func(*dockerNode) error) error {
	return d.nodeTable.control(&d.mu, &d.stopped, name, f)
}

// Pause freezes every process of the node's container (docker pause, the
// cgroup freezer); connections stay open and commands wait. Pausing a
// paused node does nothing; a killed node is an error.
func (d *Docker) Pause(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error { return d.pause(ctx, n) })
}

// Resume unfreezes a paused node (docker unpause).
func (d *Docker) Resume(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error { return d.resume(ctx, n) })
}

// Kill sends SIGKILL to the node's container (docker kill, even when
// paused) and waits until it has exited. Its proxies then refuse
// connections. Killing a killed node does nothing.
func (d *Docker) Kill(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error { return d.kill(ctx, n) })
}

// Restart starts a killed node's container again (docker start): same
// container, same published port, same persistence. With PersistNone its
// /data is a tmpfs, so it comes back empty; with AOF it reloads its
// append-only file from the container's filesystem. A running node is an
// error.
func (d *Docker) Restart(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error {
		if err := d.restart(ctx, n); err != nil {
			return err
		}
		return d.followPrimary(ctx, n)
	})
}

// followPrimary lets the replica (and sentinels) follow the primary again
// when n is the primary and came back; see dockerPair.follow.
func (d *Docker) followPrimary(ctx context.Context, n *dockerNode) error {
	if d.rep == nil || n != d.rep.primary {
		return nil
	}
	return d.rep.follow(ctx)
}

// DisconnectNode disconnects the node's container from the run's private
// network: other containers can no longer reach it (a replication link
// through the network breaks), while clients still reach it through the
// proxies and the published port. Disconnecting twice does nothing.
func (d *Docker) DisconnectNode(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error { return d.disconnect(ctx, n) })
}

// ReconnectNode connects the node back to the private network under its
// name. Reconnecting a connected node does nothing.
func (d *Docker) ReconnectNode(ctx context.Context, name string) error {
	return d.control(name, func(n *dockerNode) error {
		was := n.disconnected
		if err := d.reconnect(ctx, n); err != nil || !was {
			return err
		}
		return d.followPrimary(ctx, n)
	})
}

// HealAll removes every link fault, reconnects disconnected nodes,
// resumes paused nodes and restarts killed ones. With a replica it also
// undoes a failover (Failback), the sentinels disarmed first so that none
// reacts to the nodes coming back, or else lets the replica follow the
// primary again.
func (d *Docker) HealAll(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return ErrStopped
	}
	errs := []error{d.proxies.HealAll(ctx)}
	if d.rep != nil {
		errs = append(errs, d.rep.disarm(ctx))
	}
	for _, n := range d.nodes {
		errs = append(errs, d.reconnect(ctx, n))
		switch n.state {
		case nodePaused:
			errs = append(errs, d.resume(ctx, n))
		case nodeDown:
			errs = append(errs, d.restart(ctx, n))
		}
	}
	if d.rep != nil {
		if d.rep.dirty {
			errs = append(errs, d.rep.failback(ctx, d.rep))
		} else {
			errs = append(errs, d.rep.follow(ctx))
		}
	}
	return errors.Join(errs...)
}

// Stop heals the links, stops every proxy and removes every container and
// both networks (with KeepContainers: kills the containers and keeps
// them). Calling it again returns the first call's result.
func (d *Docker) Stop() error {
	if d.rep != nil {
		d.rep.cancel() // end a failover in flight, which holds mu
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return d.stopErr
	}
	d.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), dockerStopTimeout)
	defer cancel()
	// Resume paused nodes first, so that data held by a freeze can be
	// delivered when the proxies heal.
	for _, n := range d.nodes {
		if n.state == nodePaused {
			_ = d.resume(ctx, n)
		}
	}
	errs := []error{d.proxies.Close()}
	all := d.nodes
	if d.rep != nil {
		all = append(d.rep.containers(), d.nodes...) // sentinels first: none reacts
	}
	for _, n := range all {
		if d.cfg.KeepContainers {
			errs = append(errs, d.kill(ctx, n))
		} else if n.id != "" {
			errs = append(errs, removeContainer(ctx, d.cli, n.id))
		}
	}
	if !d.cfg.KeepContainers {
		errs = append(errs, d.nets.remove(ctx, d.cli))
	}
	errs = append(errs, d.cli.Close())
	unregister(d)
	d.stopErr = errors.Join(errs...)
	return d.stopErr
}
