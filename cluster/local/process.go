package local

import (
	"context"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/cluster"
)

// This file is the local provider's kit for other providers that run
// redis-server processes on this machine with a config of their own (the
// Redis Cluster provider, cluster/rediscluster): the same process
// control, parent-death signal, readiness probe and run directory.

// Process is one redis-server child process of this machine, in its own
// directory, on a fixed port once started. It implements cluster.Process;
// a cluster.Core drives it.
type Process struct{ *node }

var _ cluster.Process = (*Process)(nil)

// NewProcess describes a redis-server process named name, running bin
// (resolved with LookRedis) in dir (made here, under a run directory made
// with MakeRunDir), with persistence p. Its config is the local
// provider's (port, bind 127.0.0.1, working directory, log, persistence)
// followed by the lines extra returns for the port; extra is called at
// every start, also by Restart, with the port the process will listen on.
func NewProcess(name, bin, dir string, p cluster.Persistence, extra func(port int) string) (*Process, error) {
	n := &node{name: name, bin: bin, dir: dir, persistence: p, state: cluster.NodeDown}
	n.render = func(port int) string {
		base := &node{port: port, persistence: p}
		return base.config() + extra(port)
	}
	return &Process{n}, os.Mkdir(dir, 0o755)
}

// StartProcess starts p on a free 127.0.0.1 port, choosing another one
// when the chosen one was taken before redis-server bound it (extra then
// sees the new port), and waits until it answers: cluster.Runtime.Start
// for a provider of Processes.
func StartProcess(ctx context.Context, p *Process) error { return lifecycle{}.Start(ctx, p.node) }

// ReleaseProcess kills and reaps p: cluster.Runtime.Release.
func ReleaseProcess(p *Process) { p.kill() }

// Pid is the process id, or 0 when it is down.
func (p *Process) Pid() int { return p.pid() }

// Dir is the process's working and data directory.
func (p *Process) Dir() string { return p.dir }

// LookRedis finds the redis-server binary (path, or redis-server in PATH
// when empty), or returns an error wrapping cluster.ErrNoRedis that says
// how to install it.
func LookRedis(path string) (string, error) { return lookRedis(path) }

// MakeRunDir sweeps the stale run directories under parent (empty means
// os.TempDir()) and makes this run's, lockstorm-<pid>-*, marked as
// the local provider's are: kept for good when keep, else removed by a
// later run once this process is gone. The path is absolute.
func MakeRunDir(parent string, keep bool) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	return makeRunDir(filepath.Clean(parent), keep)
}
