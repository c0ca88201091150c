package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
)

// LocalConfig describes a cluster of redis-server processes on this machine.
type LocalConfig struct {
	// Nodes is the number of redis-server processes, named n1..nN; at least 1.
	Nodes int
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// Persistence is every node's persistence mode; empty means PersistNone.
	Persistence Persistence
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
	// that the cluster offers Replicated (see failover.go, replica.go).
	Replica bool
	// Promotion is how a failover promotes the replica: PromoteSentinel,
	// PromoteManual, or PromoteAuto (default: sentinel when redis-sentinel
	// is installed, else manual). Only with Replica.
	Promotion Promotion
	// Sentinels is the number of redis-sentinel processes when promotion
	// is by sentinel (default 1; 3 gives a quorum of 2).
	Sentinels int
	// SentinelDownAfter is the sentinels' down-after-milliseconds during a
	// failover (default DefaultSentinelDownAfter).
	SentinelDownAfter time.Duration
	// RedisSentinel is the redis-sentinel binary; empty means
	// "redis-sentinel" looked up in PATH.
	RedisSentinel string
}

// Local is the local provider: redis-server child processes, each in its
// own directory under one run directory named lockstorm-<pid>-*, reached by
// clients only through an embedded toxiproxy (see Proxies). It implements
// Cluster, and Replicated when started with LocalConfig.Replica. Children
// get SIGKILL if the harness process dies; Stop, StopAll and HandleSignals
// clean up otherwise.
type Local struct {
	cfg         LocalConfig
	runDir      string
	proxyFaults // clients, proxy addresses and link faults
	nodeTable[*node]
	rep *replicaSet // nil without LocalConfig.Replica

	mu      sync.Mutex // serialises process control (pause, kill, restart, stop)
	stopped bool
	stopErr error
}

var _ Cluster = (*Local)(nil)

// maxPortTries bounds how often a node start is retried on a fresh port
// when another process grabbed the port between choosing and binding it.
const maxPortTries = 5

// lookRedis finds the redis-server binary or says how to install it.
func lookRedis(path string) (string, error) {
	return lookBinary(path, "redis-server", ErrNoRedis, " or on macOS `brew install redis`")
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

// StartLocal starts cfg.Nodes redis-server processes on free 127.0.0.1
// ports and one proxy per (client, node) link, and returns when every node
// answers. On error nothing is left running.
func StartLocal(ctx context.Context, cfg LocalConfig) (*Local, error) {
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
	bin, err := lookRedis(cfg.RedisServer)
	if err != nil {
		return nil, err
	}
	sentinelBin, err := resolvePromotion(&cfg)
	if err != nil {
		return nil, err
	}
	proxies, err := NewProxies(cfg.Clients)
	if err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		cfg.Dir = os.TempDir()
	}
	removeStaleRunDirs(cfg.Dir)
	runDir, err := os.MkdirTemp(cfg.Dir, fmt.Sprintf("%s%d-*", runDirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("cluster: run directory: %w", err)
	}
	if runDir, err = filepath.Abs(runDir); err != nil {
		return nil, err
	}
	if err := writeRunMarker(runDir, cfg.KeepDir); err != nil {
		_ = os.RemoveAll(runDir)
		return nil, err
	}
	l := &Local{
		cfg:         cfg,
		runDir:      runDir,
		proxyFaults: proxyFaults{proxies},
		nodeTable:   nodeTable[*node]{byName: map[string]*node{}},
	}
	register(l)
	if err := l.startNodes(ctx, bin); err != nil {
		_ = l.Stop()
		return nil, err
	}
	if cfg.Replica {
		if err := l.startReplica(ctx, sentinelBin); err != nil {
			_ = l.Stop()
			return nil, err
		}
	}
	return l, nil
}

// startNodes starts every node, then creates its proxies.
func (l *Local) startNodes(ctx context.Context, bin string) error {
	for i := 1; i <= l.cfg.Nodes; i++ {
		n := &node{
			name:        "n" + strconv.Itoa(i),
			bin:         bin,
			dir:         filepath.Join(l.runDir, "n"+strconv.Itoa(i)),
			persistence: l.cfg.Persistence,
			state:       nodeDown,
		}
		if err := os.Mkdir(n.dir, 0o755); err != nil {
			return err
		}
		l.nodes = append(l.nodes, n)
		l.byName[n.name] = n
	}
	// Start the nodes in parallel: each start mostly waits.
	errs := make([]error, len(l.nodes))
	var wg sync.WaitGroup
	for i, n := range l.nodes {
		wg.Go(func() { errs[i] = startOnFreePort(ctx, n) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, n := range l.nodes {
		if err := l.proxies.AddTarget(ctx, n.name, n.addr()); err != nil {
			return err
		}
	}
	return nil
}

// startOnFreePort picks a free port and starts the node on it, trying
// another port if the chosen one was taken before redis-server bound it.
func startOnFreePort(ctx context.Context, n *node) error {
	var err error
	for try := 0; try < maxPortTries; try++ {
		if n.port, err = freePort(); err != nil {
			return err
		}
		if err = n.start(ctx); err == nil || !errors.Is(err, errPortInUse) {
			return err
		}
	}
	return err
}

// freePort asks the kernel for a free 127.0.0.1 port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cluster: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Dir is the run directory holding one sub-directory per node.
func (l *Local) Dir() string { return l.runDir }

// Persistence is the nodes' persistence mode.
func (l *Local) Persistence() Persistence { return l.cfg.Persistence }

// Pid is the node's redis-server process id, or 0 if the node is down or
// unknown.
func (l *Local) Pid(name string) int {
	n, err := l.node(name)
	if err != nil {
		return 0
	}
	return n.pid()
}

// AddUpstream adds an extra target at addr, which must be on the loopback
// interface, with one proxy per client.
func (l *Local) AddUpstream(ctx context.Context, name, addr string) error {
	return l.addUpstream(ctx, l.proxies, name, addr)
}

// control runs f on a node unless the cluster is stopped.
func (l *Local) control(name string, f func(*node) error) error {
	return l.nodeTable.control(&l.mu, &l.stopped, name, f)
}

// Pause stops the node's process with SIGSTOP; connections stay open and
// commands wait. Pausing a paused node does nothing; a down node is an error.
func (l *Local) Pause(ctx context.Context, name string) error {
	return l.control(name, (*node).pause)
}

// Resume continues a paused node with SIGCONT.
func (l *Local) Resume(ctx context.Context, name string) error {
	return l.control(name, (*node).resume)
}

// Kill ends the node with SIGKILL (even when paused) and reaps it. Its
// proxies then refuse connections. Killing a down node does nothing.
func (l *Local) Kill(ctx context.Context, name string) error {
	return l.control(name, func(n *node) error { n.kill(); return nil })
}

// Restart starts a down node again on the same port, in the same
// directory, with the same persistence: with PersistNone it comes back
// empty, with AOF it reloads its append-only file. A running node is an error.
func (l *Local) Restart(ctx context.Context, name string) error {
	return l.control(name, func(n *node) error { return n.restart(ctx) })
}

// HealAll removes every link fault, resumes paused nodes and restarts
// nodes that are down. With a replica it also heals the replication link
// and undoes a failover (Failback), the sentinels disarmed first so that
// none reacts to the nodes coming back.
func (l *Local) HealAll(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return ErrStopped
	}
	var errs []error
	if l.rep != nil {
		errs = append(errs, l.rep.disarm(ctx))
		errs = append(errs, l.rep.link.heal(ctx))
	}
	errs = append(errs, l.proxies.HealAll(ctx))
	for _, n := range l.nodes {
		switch n.current() {
		case nodePaused:
			errs = append(errs, n.resume())
		case nodeDown:
			errs = append(errs, n.restart(ctx))
		}
	}
	if l.rep != nil {
		if l.rep.replica.current() == nodePaused {
			errs = append(errs, l.rep.replica.resume())
		}
		errs = append(errs, l.rep.failback(ctx, l.rep))
	}
	return errors.Join(errs...)
}

// Stop heals the links, kills and reaps every node, stops every proxy and
// removes the run directory unless KeepDir (then it says on stderr where
// the kept directory is). Calling it again returns the
// first call's result.
func (l *Local) Stop() error {
	if l.rep != nil {
		l.rep.cancel() // end a failover in flight, which holds mu
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return l.stopErr
	}
	l.stopped = true
	// Resume paused nodes first, so that data held by a freeze can be
	// delivered when the proxies heal, then kill everything.
	for _, n := range l.nodes {
		if n.current() == nodePaused {
			_ = n.resume()
		}
	}
	var errs []error
	if l.rep != nil {
		errs = append(errs, l.rep.stop())
	}
	errs = append(errs, l.proxies.Close())
	for _, n := range l.nodes {
		n.kill()
	}
	if !l.cfg.KeepDir {
		if err := os.RemoveAll(l.runDir); err != nil {
			errs = append(errs, fmt.Errorf("cluster: remove %s: %w", l.runDir, err))
		}
	} else {
		fmt.Fprintf(os.Stderr, "lockstorm: kept the nodes' folder %s (remove it yourself)\n", l.runDir)
	}
	unregister(l)
	l.stopErr = errors.Join(errs...)
	return l.stopErr
}
