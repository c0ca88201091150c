package rediscluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// start starts a 3-master cluster with clients c1 and c2 and stops it
// when the test ends; it skips when redis-server is missing.
func start(t *testing.T, cfg rediscluster.Config) *rediscluster.Cluster {
	t.Helper()
	if cfg.Clients == nil {
		cfg.Clients = []string{"c1", "c2"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	begin := time.Now()
	c, err := rediscluster.Start(ctx, cfg)
	if errors.Is(err, cluster.ErrNoRedis) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster of %d nodes started in %v", len(c.Nodes()), time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return c
}

// ctxT is a context bounded by d that ends with the test.
func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
