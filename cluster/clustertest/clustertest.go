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
	var skip error
	if o.SkipIfMissing {
		skip = cluster.ErrNoRedis
	}
	return start(t, 30*time.Second, skip, func(ctx context.Context) (*local.Cluster, error) {
		return local.Start(ctx, local.Config{Nodes: o.Nodes, Clients: o.Clients, Persistence: o.Persistence, KeepDir: o.KeepDir})
	})
}

// start runs f with a context of timeout and stops the cluster it returns
// when the test ends, failing the test if Stop fails. An error of f fails
// the test, or skips it when it wraps skip (if not nil).
func start[C cluster.Cluster](t testing.TB, timeout time.Duration, skip error, f func(context.Context) (C, error)) C {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := f(ctx)
	if err != nil {
		if skip != nil && errors.Is(err, skip) {
			t.Skip(err)
		}
		t.Fatalf("clustertest: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("clustertest: stop: %v", err)
		}
	})
	return c
}

// StartReplicated starts cfg's nodes (default 1), n1 with an asynchronous
// replica, and stops them when the test ends; it skips the test when
// redis-server or redis-sentinel is not installed.
func StartReplicated(t testing.TB, cfg local.Config) *local.Cluster {
	t.Helper()
	cfg.Nodes, cfg.Replica = max(cfg.Nodes, 1), true
	return start(t, 20*time.Second, nil, func(ctx context.Context) (*local.Cluster, error) {
		c, err := local.Start(ctx, cfg)
		if errors.Is(err, cluster.ErrNoRedis) || errors.Is(err, cluster.ErrNoSentinel) {
			t.Skip(err)
		}
		return c, err
	})
}

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
