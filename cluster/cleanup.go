package cluster

import (
	"errors"
	"fmt"
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
// running, and joins their Stop errors. The lockstorm command defers it in
// its run function (so it also runs while a panic unwinds) and calls it
// on a second SIGINT or SIGTERM before exiting (the first one cancels the
// run, which stops its cluster itself); HandleSignals, for programs that
// embed the package, calls it on the first SIGINT or SIGTERM.
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

// Run directory markers. A run directory holds runMarkerFile while
// lockstorm may sweep it: its first line is runMarkerMagic, its second
// "pid <pid>" of the owning process. A directory kept after the run
// (KeepDir) holds keptMarkerFile instead, from the start, so that it is
// never swept, even when its run was killed before Stop.
const (
	runMarkerFile  = ".lockstorm-run"
	keptMarkerFile = ".lockstorm-kept"
	runMarkerMagic = "lockstorm run directory v1: removed when its pid is gone"
)

// writeRunMarker marks dir as a run directory of this process: swept
// later once this process is gone, unless keep, which marks it as kept.
func writeRunMarker(dir string, keep bool) error {
	name, body := runMarkerFile, fmt.Sprintf("%s\npid %d\n", runMarkerMagic, os.Getpid())
	if keep {
		name, body = keptMarkerFile, fmt.Sprintf("kept by lockstorm pid %d: never removed by lockstorm\n", os.Getpid())
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		return fmt.Errorf("cluster: run directory marker: %w", err)
	}
	return nil
}

// markerPid returns the owning pid written in dir's run marker, or 0 when
// dir carries no valid marker (not lockstorm's, or kept).
func markerPid(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, runMarkerFile))
	if err != nil {
		return 0
	}
	magic, rest, _ := strings.Cut(string(b), "\n")
	if magic != runMarkerMagic {
		return 0
	}
	line, _, _ := strings.Cut(rest, "\n")
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "pid "))
	if err != nil || !strings.HasPrefix(line, "pid ") || pid <= 0 {
		return 0
	}
	return pid
}

// removeStaleRunDirs removes run directories under parent left by lockstorm
// processes that no longer exist (killed before they could clean up). Its
// redis-servers died with them (parent-death signal), so only files remain.
// A directory is removed only when its name is lockstorm-<pid>-*, it holds
// lockstorm's run marker naming that same pid, and no process has that
// pid: folders lockstorm did not create, and kept ones, are never touched.
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
		dir := filepath.Join(parent, name)
		if markerPid(dir) != pid {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

// processAlive reports whether a process with this pid exists (signal 0).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
