// Package local is the local provider: redis-server child processes on
// this machine, each in its own directory under one run directory, reached
// by clients only through the proxies of the cluster core.
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// Config describes a cluster of redis-server processes on this machine.
type Config struct {
	// Nodes is the number of redis-server processes, named n1..nN; at least 1.
	Nodes int
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// Persistence is every node's persistence mode; empty means PersistNone.
	Persistence cluster.Persistence
	// RedisServer is the redis-server binary; empty means "redis-server"
	// looked up in PATH.
	RedisServer string
	// Dir is the parent of the run directory; empty means os.TempDir().
	Dir string
	// KeepDir keeps the run directory (configs, logs, data) after Stop.
	// A kept directory is marked kept (.lockstorm-kept) from the start,
	// so that no later run's stale-directory sweep removes it.
	KeepDir bool

	// Replica gives node n1 an asynchronous replica (a redis-server that is
	// not one of the nodes) replicating through a proxy of its own, so
	// that the cluster offers cluster.Replicated (see replica.go).
	Replica bool
	// ReplicaOptions are the replica's promotion and sentinels (only with
	// Replica); auto promotion means sentinel when redis-sentinel is
	// installed, else manual.
	cluster.ReplicaOptions
	// RedisSentinel is the redis-sentinel binary; empty means
	// "redis-sentinel" looked up in PATH.
	RedisSentinel string
}

// Cluster is the local provider's cluster: redis-server child processes,
// each in its own directory under one run directory named
// lockstorm-<pid>-*, reached by clients only through an embedded toxiproxy
// (see cluster.Proxies). It implements cluster.Cluster, and
// cluster.Replicated when started with Config.Replica. Children get
// SIGKILL if the harness process dies; Stop, cluster.StopAll and
// cluster.HandleSignals clean up otherwise.
type Cluster struct {
	*cluster.Core[*node]
	cfg    Config
	runDir string
	rep    *replicaSet // nil without Config.Replica
}

// lookRedis finds the redis-server binary or says how to install it.
func lookRedis(path string) (string, error) {
	return lookBinary(path, "redis-server", cluster.ErrNoRedis, " or on macOS `brew install redis`")
}

// lookSentinel finds the redis-sentinel binary, or wraps ErrNoSentinel.
func lookSentinel(path string) (string, error) {
	return lookBinary(path, "redis-sentinel", cluster.ErrNoSentinel, "")
}

// lookBinary finds a program of Debian's package of the same name (path,
// or name in PATH when path is empty), or returns an error wrapping
// notFound that says how to install it.
func lookBinary(path, name string, notFound error, more string) (string, error) {
	if path == "" {
		path = name
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%w (%q: %v): install Debian's %s package (sudo apt-get install %s)%s",
			notFound, path, err, name, name, more)
	}
	return p, nil
}

// Start starts cfg.Nodes redis-server processes on free 127.0.0.1 ports
// and one proxy per (client, node) link, and returns when every node
// answers. On error nothing is left running.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := cluster.CheckNodes(cfg.Nodes, &cfg.Persistence); err != nil {
		return nil, err
	}
	cfg.Clients = slices.Clone(cfg.Clients)
	bin, err := lookRedis(cfg.RedisServer)
	if err != nil {
		return nil, err
	}
	sentinelBin, err := resolvePromotion(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		cfg.Dir = os.TempDir()
	}
	l := &Cluster{cfg: cfg}
	if l.runDir, err = makeRunDir(cfg.Dir, cfg.KeepDir); err != nil {
		return nil, err
	}
	if l.Core, err = cluster.NewCore[*node](cfg.Clients, lifecycle{l}); err != nil {
		_ = os.RemoveAll(l.runDir)
		return nil, err
	}
	if err := l.start(ctx, bin, sentinelBin); err != nil {
		_ = l.Stop()
		return nil, err
	}
	return l, nil
}

// makeRunDir sweeps the stale run directories under parent and makes
// this run's, marked (see writeRunMarker).
func makeRunDir(parent string, keep bool) (string, error) {
	removeStaleRunDirs(parent)
	runDir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-*", runDirPrefix, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("cluster: run directory: %w", err)
	}
	if runDir, err = filepath.Abs(runDir); err == nil {
		err = writeRunMarker(runDir, keep)
	}
	if err != nil {
		_ = os.RemoveAll(runDir)
		return "", err
	}
	return runDir, nil
}

// start starts the nodes, then the replica if asked for.
func (l *Cluster) start(ctx context.Context, bin, sentinelBin string) error {
	var nodes []*node
	for i := 1; i <= l.cfg.Nodes; i++ {
		n, err := l.newNode("n"+strconv.Itoa(i), bin, l.cfg.Persistence)
		if err != nil {
			return err
		}
		nodes = append(nodes, n)
	}
	if err := cluster.StartNodes(ctx, l.Core, nodes); err != nil {
		return err
	}
	if l.cfg.Replica {
		return l.startReplica(ctx, nodes[0], sentinelBin)
	}
	return nil
}

// newNode describes a node in its own new directory of the run directory.
func (l *Cluster) newNode(name, bin string, p cluster.Persistence) (*node, error) {
	n := &node{name: name, bin: bin, dir: filepath.Join(l.runDir, name), persistence: p, state: cluster.NodeDown}
	return n, os.Mkdir(n.dir, 0o755)
}

// lifecycle is what the local provider gives the cluster core.
type lifecycle struct{ l *Cluster }

// Start starts a process on a free port, trying another port if the
// chosen one was taken before redis-server bound it.
func (lifecycle) Start(ctx context.Context, n *node) error {
	return host.OnFreePort(func(port int) error {
		n.port = port
		return n.start(ctx)
	}, func(err error) bool { return errors.Is(err, errPortInUse) })
}

// HealNode has nothing to heal: a local node has no fault of its own.
func (lifecycle) HealNode(context.Context, *node) error { return nil }

// Release kills and reaps a process.
func (lifecycle) Release(_ context.Context, n *node) error { n.kill(); return nil }

// Close removes the run directory unless KeepDir (then it says on stderr
// where the kept directory is).
func (r lifecycle) Close(context.Context) error {
	if r.l.cfg.KeepDir {
		fmt.Fprintf(os.Stderr, "lockstorm: kept the nodes' folder %s (remove it yourself)\n", r.l.runDir)
		return nil
	}
	if err := os.RemoveAll(r.l.runDir); err != nil {
		return fmt.Errorf("cluster: remove %s: %w", r.l.runDir, err)
	}
	return nil
}

// Dir is the run directory holding one sub-directory per node.
func (l *Cluster) Dir() string { return l.runDir }

// Persistence is the nodes' persistence mode.
func (l *Cluster) Persistence() cluster.Persistence { return l.cfg.Persistence }

// Pid is the node's redis-server process id, or 0 if the node is down or
// unknown.
func (l *Cluster) Pid(name string) int {
	n, err := cluster.NodeOf(l.Core, name)
	if err != nil {
		return 0
	}
	return n.pid()
}
