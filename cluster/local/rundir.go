package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// runDirPrefix starts the name of every run directory: lockstorm-<pid>-*.
const runDirPrefix = "lockstorm-"

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
		if err != nil || pid <= 0 || pid == os.Getpid() || host.ProcessAlive(pid) {
			continue
		}
		dir := filepath.Join(parent, name)
		if markerPid(dir) != pid {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}
