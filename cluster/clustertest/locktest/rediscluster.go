package locktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// RedisCluster is a real Redis Cluster on loopback: masters only (no
// replicas), each a redis-server child of the test process with
// cluster-enabled yes, no persistence, slots split evenly in order (with
// three masters: 0-5460, 5461-10922, 10923-16383).
type RedisCluster struct {
	// Addrs are the masters' addresses, in slot order.
	Addrs []string
	dir   string
	procs []*exec.Cmd
}

// StartRedisCluster starts masters redis-servers on free loopback ports
// in a fresh directory, assigns the slots, introduces the nodes to each
// other and waits until every node reports cluster_state:ok. On error
// everything started is stopped.
func StartRedisCluster(ctx context.Context, masters int) (rc *RedisCluster, err error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("lockstorm-%d-rediscluster-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	rc = &RedisCluster{dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, rc.Stop())
			rc = nil
		}
	}()
	for range masters {
		port, err := freeClusterPort()
		if err != nil {
			return rc, err
		}
		p := strconv.Itoa(port)
		cmd := exec.Command("redis-server", "--port", p, "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+p+".conf",
			"--dir", dir, "--save", "", "--appendonly", "no", "--logfile", "redis-"+p+".log")
		if err := cmd.Start(); err != nil {
			return rc, fmt.Errorf("start redis-server: %w", err)
		}
		rc.procs = append(rc.procs, cmd)
		rc.Addrs = append(rc.Addrs, "127.0.0.1:"+p)
	}
	return rc, rc.form(ctx)
}

// form assigns each master its slot range, makes them meet, and waits for
// cluster_state:ok everywhere.
func (rc *RedisCluster) form(ctx context.Context) error {
	admins := make([]*redis.Client, len(rc.Addrs))
	for i, a := range rc.Addrs {
		admins[i] = redis.NewClient(&redis.Options{Addr: a, DisableIdentity: true})
		defer admins[i].Close()
	}
	per := lockimpl.Slots / len(admins)
	for i, c := range admins {
		if err := waitPing(ctx, c); err != nil {
			return fmt.Errorf("node %s: %w", rc.Addrs[i], err)
		}
		lo, hi := i*per, (i+1)*per-1
		if i == len(admins)-1 {
			hi = lockimpl.Slots - 1
		}
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			return fmt.Errorf("node %s: addslotsrange %d %d: %w", rc.Addrs[i], lo, hi, err)
		}
	}
	host, port, _ := net.SplitHostPort(rc.Addrs[0])
	for i, c := range admins[1:] {
		if err := c.ClusterMeet(ctx, host, port).Err(); err != nil {
			return fmt.Errorf("node %s: cluster meet: %w", rc.Addrs[i+1], err)
		}
	}
	for i, c := range admins {
		if err := waitClusterOK(ctx, c, len(admins)); err != nil {
			return fmt.Errorf("node %s: %w (log in %s)", rc.Addrs[i], err, rc.dir)
		}
	}
	return nil
}

// waitPing waits until the node answers PING.
func waitPing(ctx context.Context, c *redis.Client) error {
	for {
		err := c.Ping(ctx).Err()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer to PING: %w", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// waitClusterOK waits until the node reports cluster_state:ok and knows
// all n masters.
func waitClusterOK(ctx context.Context, c *redis.Client, n int) error {
	want := []string{"cluster_state:ok", fmt.Sprintf("cluster_known_nodes:%d", n), "cluster_slots_assigned:16384"}
	var last string
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil {
			last = info
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(info, w)
			}
			if ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ok: %w; last CLUSTER INFO: %q", ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// freeClusterPort returns a loopback port that is free, as is its cluster
// bus port (port + 10000).
func freeClusterPort() (int, error) {
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			ln.Close()
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		ln.Close()
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, errors.New("no free port pair (port, port+10000) on 127.0.0.1")
}

// Stop kills every node, waits for it to exit and removes the directory.
func (rc *RedisCluster) Stop() error {
	var errs []error
	for _, p := range rc.procs {
		if err := p.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, err)
		}
		_ = p.Wait() // killed: a non-nil "signal: killed" is expected
	}
	rc.procs = nil
	errs = append(errs, os.RemoveAll(rc.dir))
	return errors.Join(errs...)
}

// Client is a cluster client to rc built the way the harness builds it
// (lockimpl.ClusterClientOptions), closed when the test ends.
func (rc *RedisCluster) Client(t testing.TB) *redis.ClusterClient {
	c := lockimpl.NewClusterClient(rc.Addrs...)
	t.Cleanup(func() { c.Close() })
	return c
}

// Node is a plain client to one master (i from 0, in slot order), closed
// when the test ends.
func (rc *RedisCluster) Node(t testing.TB, i int) *redis.Client {
	c := lockimpl.NewClient(rc.Addrs[i])
	t.Cleanup(func() { c.Close() })
	return c
}

// The test binary's Redis Cluster, started by the first test that asks
// for it and stopped by Main.
var (
	rcOnce sync.Once
	rc     *RedisCluster
	rcErr  error
)

// SharedRedisCluster returns the test binary's three-master Redis Cluster,
// starting it on first use (the test fails if it cannot start).
func SharedRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	rcOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		rc, rcErr = StartRedisCluster(ctx, 3)
	})
	if rcErr != nil {
		t.Fatalf("start redis cluster: %v", rcErr)
	}
	return rc
}

// stopSharedRedisCluster stops the shared Redis Cluster if it was started.
func stopSharedRedisCluster() error {
	if rc == nil {
		return nil
	}
	return rc.Stop()
}
