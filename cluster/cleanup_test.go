package cluster_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// startIn starts a one-node local cluster whose run directory is under
// parent, and stops it when the test ends.
func startIn(t *testing.T, parent string, keep bool) *local.Cluster {
	t.Helper()
	c, err := local.Start(clustertest.Context(t, 20*time.Second), local.Config{Nodes: 1, Dir: parent, KeepDir: keep})
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// The stale-directory sweep at start removes only run directories that
// lockstorm marked, of a process that is gone: a user's folder named like
// a run directory, an unmarked lockstorm-<dead pid>-* folder and a kept run
// directory all survive.
func TestStaleSweepRemovesOnlyMarkedDirs(t *testing.T) {
	parent := t.TempDir()
	const dead = 99999997 // above any pid_max: no such process
	mkdir := func(name string) string {
		d := filepath.Join(parent, name)
		clustertest.Must(t, os.MkdirAll(d, 0o755))
		clustertest.Must(t, os.WriteFile(filepath.Join(d, "data"), []byte("user data"), 0o644))
		return d
	}
	user := mkdir("lockstorm-2025-12-02")
	unmarked := mkdir("lockstorm-99999999-x")

	// A kept run directory of a run that is gone: a real kept directory,
	// renamed as if its (dead) process had made it.
	k := startIn(t, parent, true)
	clustertest.Must(t, k.Stop())
	kept := filepath.Join(parent, fmt.Sprintf("lockstorm-%d-kept", dead))
	clustertest.Must(t, os.Rename(k.Dir(), kept))

	// A marked run directory of a dead process: a live run's marker with
	// the dead pid.
	live := startIn(t, parent, false)
	var marker string
	entries, err := os.ReadDir(live.Dir())
	clustertest.Must(t, err)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(live.Dir(), e.Name())); err == nil && strings.Contains(string(b), fmt.Sprintf("pid %d\n", os.Getpid())) {
			marker = e.Name()
			stale := mkdir(fmt.Sprintf("lockstorm-%d-abc", dead))
			clustertest.Must(t, os.WriteFile(filepath.Join(stale, marker),
				[]byte(strings.Replace(string(b), fmt.Sprintf("pid %d", os.Getpid()), fmt.Sprintf("pid %d", dead), 1)), 0o644))
		}
	}
	if marker == "" {
		t.Errorf("run directory %s has no marker naming pid %d", live.Dir(), os.Getpid())
	}
	clustertest.Must(t, live.Stop())

	startIn(t, parent, false) // sweeps
	for _, d := range []string{user, unmarked, kept} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the sweep removed %s: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(parent, fmt.Sprintf("lockstorm-%d-abc", dead))); !os.IsNotExist(err) {
		t.Errorf("the marked directory of dead pid %d survived the sweep (stat: %v)", dead, err)
	}
}
