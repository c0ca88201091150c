// Package clustertest starts local Redis clusters for tests: real
// redis-server processes behind toxiproxy, stopped by t.Cleanup.
package clustertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// Options configures StartWith. Zero values take the cluster defaults.
type Options struct {
	// Nodes is the number of redis-server processes (default 1).
	Nodes int
	// Clients names the clients (default "c1").
	Clients []string
	// Persistence is the nodes' persistence mode (default none).
	Persistence cluster.Persistence
	// KeepDir keeps the run directory after the test (for debugging).
	KeepDir bool
	// SkipIfMissing skips the test instead of failing it when redis-server
	// is not installed.
	SkipIfMissing bool
}

// Start starts a local cluster of nodes redis-servers with the given
// clients (default "c1"), with persistence none, and stops it when the test
// ends. It fails the test if the cluster cannot start.
func Start(t testing.TB, nodes int, clients ...string) *local.Cluster {
	t.Helper()
	return StartWith(t, Options{Nodes: nodes, Clients: clients})
}

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *local.Cluster {
	t.Helper()
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := local.Start(ctx, local.Config{
		Nodes:       o.Nodes,
		Clients:     o.Clients,
		Persistence: o.Persistence,
		KeepDir:     o.KeepDir,
	})
	if err != nil {
		if o.SkipIfMissing && errors.Is(err, cluster.ErrNoRedis) {
			t.Skip(err)
		}
		t.Fatalf("clustertest: %v", err)
	}
	stopAtCleanup(t, c)
	return c
}

// stopAtCleanup stops c when the test ends, failing it if Stop fails.
func stopAtCleanup(t testing.TB, c cluster.Cluster) {
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("clustertest: stop: %v", err)
		}
	})
}
