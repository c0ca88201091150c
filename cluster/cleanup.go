package cluster

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// runDirPrefix starts the name of every run directory: lockstorm-<pid>-*.
const runDirPrefix = "lockstorm-"

// live is the registry of clusters not yet stopped, for StopAll.
var live = struct {
	sync.Mutex
	m map[Cluster]struct{}
}{m: map[Cluster]struct{}{}}

func register(c Cluster) {
	live.Lock()
	live.m[c] = struct{}{}
	live.Unlock()
}

func unregister(c Cluster) {
	live.Lock()
	delete(live.m, c)
	live.Unlock()
}

// StopAll stops every cluster started by this process that is still
// running. A harness defers it in main and calls it on a failed check or a
// recovered panic; HandleSignals calls it on SIGINT and SIGTERM.
func StopAll() error {
	live.Lock()
	cs := make([]Cluster, 0, len(live.m))
	for c := range live.m {
		cs = append(cs, c)
	}
	live.Unlock()
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Stop())
	}
	return errors.Join(errs...)
}

// HandleSignals makes SIGINT and SIGTERM stop every cluster (StopAll) and
// then exit with the conventional status 128+signal (130, 143). The
// returned function undoes it. Call it once, early in main.
func HandleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			_ = StopAll()
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}

// removeStaleRunDirs removes run directories under parent left by lockstorm
// processes that no longer exist (killed before they could clean up). Its
// redis-servers died with them (parent-death signal), so only files remain.
func removeStaleRunDirs(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, runDirPrefix) {
			continue
		}
		rest := name[len(runDirPrefix):]
		i := strings.IndexByte(rest, '-')
		if i <= 0 {
			continue
		}
		pid, err := strconv.Atoi(rest[:i])
		if err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, name))
	}
}

// processAlive reports whether a process with this pid exists (signal 0).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
