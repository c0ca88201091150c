// Package rediscluster runs a Redis Cluster (redis-server with
// cluster-enabled yes) on this machine: N masters n1..nN, each with one
// asynchronous replica n1r..nNr, every path proxied so that it can be
// faulted. Clients reach each node through their own proxies (the
// cluster.Core link engine, as with the local provider); the nodes reach
// each other through two internal proxies per node, whose addresses are
// the ones each node announces: one in front of its client port (replicas
// replicate and MIGRATE moves keys through it) and one in front of its
// cluster bus port (peers' bus connections). Dialer maps the announced
// addresses to a client's own proxies, so that a go-redis ClusterClient
// follows MOVED and ASK through them.
package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// Config describes a Redis Cluster of local redis-server processes.
type Config struct {
	// Masters is the number of masters, named n1..nN, each with one
	// replica named n1r..nNr; at least 3 (a failover needs a majority of
	// masters to vote). 0 means 3.
	Masters int
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// NodeTimeout is cluster-node-timeout: how long a node may be
	// unreachable before the others flag it failed and fail it over. 0
	// means DefaultNodeTimeout; at least 100 ms.
	NodeTimeout time.Duration
	// Persistence is every node's persistence mode; empty means none.
	Persistence cluster.Persistence
	// RedisServer is the redis-server binary (7.0 or later); empty means
	// redis-server in PATH.
	RedisServer string
	// Dir is the parent of the run directory; empty means os.TempDir().
	Dir string
	// Keep keeps the run directory (configs, nodes.conf, logs, data)
	// after Stop.
	Keep bool
}

// DefaultNodeTimeout is the cluster-node-timeout when Config leaves it 0:
// short, so that failovers happen within a couple of seconds.
const DefaultNodeTimeout = time.Second

// startTimeout bounds Start when its context has no earlier deadline.
const startTimeout = 60 * time.Second

// Sentinel errors.
var (
	// ErrTooFewMasters: Config.Masters is below 3.
	ErrTooFewMasters = errors.New("rediscluster: a Redis Cluster needs at least 3 masters")
	// ErrUnknownAddr: the dialer was asked for an address that is not one
	// the cluster announces nor one of the client's proxies.
	ErrUnknownAddr = errors.New("rediscluster: address not announced by the cluster")
)

// Cluster is a running Redis Cluster. It implements cluster.Cluster
// (through cluster.Core; Nodes lists the masters as started, then the
// replicas; HealAll also heals the links between nodes) and adds the
// cluster's own operations and faults. Its State (the cluster as the
// nodes see it) hides Core.State (a process's state), and its
// CutReplication and Failover, a Redis Cluster's, hide those of the
// local provider's master-replica pair: it is not a cluster.Replicated.
type Cluster struct {
	*cluster.Core[*node]
	cfg      Config
	runDir   string
	all      []*node // masters as started, then replicas (n_i then n_ir)
	masters  int
	mu       sync.Mutex        // serialises the internal link faults (bus, replication)
	isolated *node             // the node whose bus is isolated, if any
	byData   map[string]string // announced client address (data proxy) -> node name
}

// Start starts 2*Masters redis-server processes on free 127.0.0.1 ports,
// the proxies, and forms the cluster: slots spread evenly over the
// masters, each replica attached to its master. It returns when the
// cluster is healthy (see WaitHealthy). On error nothing is left running.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	bin, err := local.LookRedis(cfg.RedisServer)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, masters: cfg.Masters}
	if c.runDir, err = local.MakeRunDir(cfg.Dir, cfg.Keep); err != nil {
		return nil, err
	}
	if c.Core, err = cluster.NewCore[*node](cfg.Clients, runtime{c}); err != nil {
		_ = os.RemoveAll(c.runDir)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := c.start(ctx, bin); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// checkConfig fills in defaults and refuses what cannot work.
func checkConfig(cfg *Config) error {
	if cfg.Masters == 0 {
		cfg.Masters = 3
	}
	if cfg.Masters < 3 {
		return fmt.Errorf("%w (a failover needs a majority of masters to vote), got %d", ErrTooFewMasters, cfg.Masters)
	}
	if cfg.NodeTimeout == 0 {
		cfg.NodeTimeout = DefaultNodeTimeout
	}
	if cfg.NodeTimeout < 100*time.Millisecond {
		return fmt.Errorf("rediscluster: node timeout must be at least 100ms, got %v", cfg.NodeTimeout)
	}
	cfg.Clients = slices.Clone(cfg.Clients)
	return cluster.CheckNodes(2*cfg.Masters, &cfg.Persistence)
}

// start starts the processes and their proxies and forms the cluster.
func (c *Cluster) start(ctx context.Context, bin string) error {
	for _, suffix := range []string{"", "r"} {
		for i := 1; i <= c.masters; i++ {
			n, err := c.newNode("n"+strconv.Itoa(i)+suffix, bin)
			if err != nil {
				return err
			}
			c.all = append(c.all, n)
		}
	}
	if err := cluster.StartNodes(ctx, c.Core, c.all); err != nil {
		return err
	}
	c.byData = map[string]string{}
	for _, n := range c.all {
		if err := c.addPeerLinks(ctx, n); err != nil {
			return err
		}
		addr, _ := n.announced()
		c.byData[addr] = n.Name()
	}
	if err := c.form(ctx); err != nil {
		return err
	}
	return c.WaitHealthy(ctx)
}

// newNode describes a node in its own directory of the run directory.
func (c *Cluster) newNode(name, bin string) (*node, error) {
	n := &node{timeout: c.cfg.NodeTimeout}
	var err error
	n.Process, err = local.NewProcess(name, bin, filepath.Join(c.runDir, name), c.cfg.Persistence, n.clusterConfig)
	return n, err
}

// addPeerLinks starts the node's data and bus proxies and makes the node
// announce them (it has met no one yet, so no peer saw other addresses).
func (c *Cluster) addPeerLinks(ctx context.Context, n *node) error {
	data, err := newPeerLink(ctx, n.Name(), n.Addr())
	if err != nil {
		return err
	}
	bus, err := newPeerLink(ctx, n.Name(), n.busAddr())
	if err != nil {
		_ = data.close()
		return err
	}
	n.mu.Lock()
	n.data, n.bus = data, bus
	n.mu.Unlock()
	return configSet(ctx, n, "cluster-announce-ip", "127.0.0.1",
		"cluster-announce-port", strconv.Itoa(data.port), "cluster-announce-bus-port", strconv.Itoa(bus.port))
}

// Dir is the run directory holding one sub-directory per node.
func (c *Cluster) Dir() string { return c.runDir }

// NodeTimeout is the cluster-node-timeout.
func (c *Cluster) NodeTimeout() time.Duration { return c.cfg.NodeTimeout }

// Pid is the node's redis-server process id, or 0 if it is down or
// unknown.
func (c *Cluster) Pid(name string) int {
	n, err := c.node(name)
	if err != nil {
		return 0
	}
	return n.Pid()
}

// runtime is what the provider gives the cluster core.
type runtime struct{ c *Cluster }

// Start starts a process on a free port (another when it was taken).
func (runtime) Start(ctx context.Context, n *node) error { return local.StartProcess(ctx, n.Process) }

// HealNode has nothing to heal: a node has no fault of its own.
func (runtime) HealNode(context.Context, *node) error { return nil }

// Release kills and reaps a process.
func (runtime) Release(_ context.Context, n *node) error { local.ReleaseProcess(n.Process); return nil }

// Close stops the internal proxies and removes the run directory unless
// Keep (then it says on stderr where it is).
func (r runtime) Close(context.Context) error {
	var errs []error
	for _, n := range r.c.all {
		n.mu.Lock()
		for _, l := range append([]*peerLink{n.data, n.bus}, n.retired...) {
			if l != nil {
				errs = append(errs, l.close())
			}
		}
		n.retired = nil // data and bus stay, closed: their faults return cluster.ErrStopped
		n.mu.Unlock()
	}
	if r.c.cfg.Keep {
		fmt.Fprintf(os.Stderr, "lockstorm: kept the Redis Cluster's folder %s (remove it yourself)\n", r.c.runDir)
	} else if err := os.RemoveAll(r.c.runDir); err != nil {
		errs = append(errs, fmt.Errorf("rediscluster: remove %s: %w", r.c.runDir, err))
	}
	return errors.Join(errs...)
}
