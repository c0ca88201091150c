package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/host"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
	"github.com/lockstorm/lockstorm/internal/child"
)

// errPortInUse means redis-server could not bind its port.
var errPortInUse = errors.New("address already in use")

// node is one redis-server (or redis-sentinel) process in its own
// directory, on a fixed port once started: the local provider's
// cluster.Process. Core calls its methods with the cluster's lock held.
type node struct {
	name        string
	bin         string
	dir         string // absolute; the process's working and data directory
	persistence cluster.Persistence
	port        int
	// render, when set, replaces config: it renders the whole config file
	// for a port (a sentinel's, see sentinel.go).
	render func(port int) string

	mu     sync.Mutex // guards cmd, exited, state
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has been reaped
	state  cluster.NodeState
}

// Name is the node's name.
func (n *node) Name() string { return n.name }

// Addr is the node's own address.
func (n *node) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

// config renders redis.conf. Paths are relative to the node directory,
// which is the process's working directory, so no quoting is needed.
func (n *node) config() string {
	if n.render != nil {
		return n.render(n.port)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\n", n.port)
	b.WriteString("dir ./\nlogfile redis.log\ndbfilename dump.rdb\nsave \"\"\n")
	// A master starts a replica's full sync at once instead of waiting 5 s
	// for more replicas to share it (failover and failback resync).
	b.WriteString("repl-diskless-sync-delay 0\n")
	switch n.persistence {
	case cluster.PersistAOFEverysec:
		b.WriteString("appendonly yes\nappendfsync everysec\n")
	case cluster.PersistAOFAlways:
		b.WriteString("appendonly yes\nappendfsync always\n")
	default:
		b.WriteString("appendonly no\n")
	}
	return b.String()
}

// start writes the config for n.port and runs redis-server until it
// answers INFO with its own pid. With persistence none, leftover data files
// are removed first, so a restart is always empty.
func (n *node) start(ctx context.Context) error {
	if n.persistence == cluster.PersistNone || n.persistence == "" {
		_ = os.Remove(filepath.Join(n.dir, "dump.rdb"))
		_ = os.RemoveAll(filepath.Join(n.dir, "appendonlydir"))
	}
	if err := os.WriteFile(filepath.Join(n.dir, "redis.conf"), []byte(n.config()), 0o644); err != nil {
		return err
	}
	// Truncate the log so that errors read from it belong to this start.
	_ = os.Remove(filepath.Join(n.dir, "redis.log"))

	cmd := exec.Command(n.bin, "redis.conf")
	cmd.Dir = n.dir
	if err := child.Start(cmd); err != nil {
		return fmt.Errorf("cluster: start %s: %w", n.name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	n.mu.Lock()
	n.cmd, n.exited, n.state = cmd, exited, cluster.NodeRunning
	n.mu.Unlock()

	err := n.waitReady(ctx, cmd.Process.Pid, exited)
	if err != nil {
		n.kill()
	}
	return err
}

// waitReady polls until the server on n.port reports pid, the process
// exits, or the deadline passes.
func (n *node) waitReady(ctx context.Context, pid int, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, host.ReadyTimeout)
	defer cancel()
	// An exit cancels a probe in flight, so it is noticed at once.
	probeCtx, cancelProbe := context.WithCancel(ctx)
	defer cancelProbe()
	go func() {
		select {
		case <-exited:
			cancelProbe()
		case <-probeCtx.Done():
		}
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-exited:
			tail := n.LogTail()
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("cluster: %s on port %d: %w", n.name, n.port, errPortInUse)
			}
			return fmt.Errorf("cluster: %s: redis-server exited during start; log:\n%s", n.name, tail)
		case <-ctx.Done():
			return fmt.Errorf("cluster: %s did not answer on %s within %v (last error: %v); log:\n%s",
				n.name, n.Addr(), host.ReadyTimeout, last, n.LogTail())
		case <-tick.C:
		}
		got, err := redisadmin.ServerPid(probeCtx, n.Addr())
		if err == nil && got == pid {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("port answered by another redis-server (pid %d)", got)
		}
		last = err
	}
}

// LogTail returns the end of the node's log, for error messages.
func (n *node) LogTail() string {
	b, err := os.ReadFile(filepath.Join(n.dir, "redis.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	const max = 1500
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return strings.TrimSpace(string(b))
}

// pid is the running process's id, or 0 when the node is down.
func (n *node) pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state == cluster.NodeDown || n.cmd == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// State returns the node's state, noticing a process that exited by itself.
func (n *node) State() cluster.NodeState {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state != cluster.NodeDown && n.exited != nil {
		select {
		case <-n.exited:
			n.state = cluster.NodeDown
		default:
		}
	}
	return n.state
}

// signal sends sig to the running process.
func (n *node) signal(sig syscall.Signal) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.state == cluster.NodeDown {
		return fmt.Errorf("cluster: node %s is not running", n.name)
	}
	return n.cmd.Process.Signal(sig)
}

// Pause stops the process with SIGSTOP and waits until it is stopped.
func (n *node) Pause(context.Context) error {
	return n.toggle("pause", syscall.SIGSTOP, cluster.NodePaused)
}

// Resume continues a paused process with SIGCONT; a down one is an error.
func (n *node) Resume(context.Context) error {
	return n.toggle("resume", syscall.SIGCONT, cluster.NodeRunning)
}

// toggle moves the process between running and paused with sig and waits
// until the kernel shows it; a process already there is left alone, a
// down one is an error.
func (n *node) toggle(op string, sig syscall.Signal, to cluster.NodeState) error {
	switch n.State() {
	case to:
		return nil
	case cluster.NodeDown:
		return fmt.Errorf("cluster: %s %s: node is down", op, n.name)
	}
	if err := n.signal(sig); err != nil {
		return err
	}
	child.WaitStopped(n.pid(), to == cluster.NodePaused)
	n.mu.Lock()
	n.state = to
	n.mu.Unlock()
	return nil
}

// Kill sends SIGKILL (which also ends a stopped process) and reaps it.
// Killing a node that is down does nothing.
func (n *node) Kill(context.Context) error {
	n.kill()
	return nil
}

// kill is Kill.
func (n *node) kill() {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.state = cluster.NodeDown
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// Restart starts a down node again on its port, retrying the bind for a
// while in case the port is briefly unavailable.
func (n *node) Restart(ctx context.Context) error {
	if n.State() != cluster.NodeDown {
		return fmt.Errorf("cluster: restart %s: node is running; kill it first", n.name)
	}
	n.kill() // reap a process that exited by itself
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := n.start(ctx)
		if err == nil || !errors.Is(err, errPortInUse) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
