package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/redis/go-redis/v9"
)

// Client is a go-redis client of addr with timeout for dialling, reads
// and writes, no retries, a pool of 2 connections and RESP2 (no HELLO),
// closed when the test ends.
func Client(t testing.TB, addr string, timeout time.Duration) *redis.Client {
	rc := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		MaxRetries: -1, PoolSize: 2, DisableIdentity: true, Protocol: 2})
	t.Cleanup(func() { _ = rc.Close() })
	return rc
}

// Dial is a Client of client's proxy to node of c, failing the test if
// c has no such proxy.
func Dial(t testing.TB, c cluster.Cluster, client, node string, timeout time.Duration) *redis.Client {
	t.Helper()
	addr, err := c.Addr(client, node)
	if err != nil {
		t.Fatal(err)
	}
	return Client(t, addr, timeout)
}

// Admin is a Client straight to node of c, bypassing the proxies.
func Admin(t testing.TB, c interface{ AdminAddr(string) (string, error) }, node string, timeout time.Duration) *redis.Client {
	t.Helper()
	addr, err := c.AdminAddr(node)
	if err != nil {
		t.Fatal(err)
	}
	return Client(t, addr, timeout)
}

// Context is a context bounded by d that ends with the test.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// StartRedisCluster starts a Redis Cluster of cfg (clients c1 and c2 when
// cfg names none) and stops it when the test ends; it skips the test when
// redis-server is missing.
func StartRedisCluster(t testing.TB, cfg rediscluster.Config) *rediscluster.Cluster {
	t.Helper()
	if cfg.Clients == nil {
		cfg.Clients = []string{"c1", "c2"}
	}
	begin := time.Now()
	c := start(t, 30*time.Second, cluster.ErrNoRedis, func(ctx context.Context) (*rediscluster.Cluster, error) {
		return rediscluster.Start(ctx, cfg)
	})
	t.Logf("cluster of %d nodes started in %v", len(c.Nodes()), time.Since(begin).Round(time.Millisecond))
	return c
}

// ClusterClient is a ClusterClient of client to c, closed when the test ends.
func ClusterClient(t testing.TB, c *rediscluster.Cluster, client string) *redis.ClusterClient {
	t.Helper()
	rc, err := c.NewClusterClient(client)
	Must(t, err)
	t.Cleanup(func() { rc.Close() })
	return rc
}
