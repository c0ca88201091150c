package cluster

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// adminDo runs f on a fresh, short-lived client of the Redis server at
// addr (a process's own address). A fresh client per step keeps nothing
// open that a sentinel's CLIENT KILL or a role change would break.
func adminDo(addr string, f func(*redis.Client) error) error {
	rc := redis.NewClient(&redis.Options{
		Addr: addr, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 2 * time.Second,
		MaxRetries: -1, PoolSize: 1, DisableIdentity: true, Protocol: 2,
	})
	defer rc.Close()
	return f(rc)
}

// replication returns the fields of INFO replication of the server at addr.
func replication(ctx context.Context, addr string) (map[string]string, error) {
	var out map[string]string
	err := adminDo(addr, func(rc *redis.Client) error {
		s, err := rc.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		out = parseInfo(s)
		return nil
	})
	return out, err
}

// parseInfo turns INFO output into field: value pairs.
func parseInfo(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m
}

// replicaOf sends REPLICAOF host port (or NO ONE when addr is "") to the
// server at target.
func replicaOf(ctx context.Context, target, addr string) error {
	host, port := "NO", "ONE"
	if addr != "" {
		var err error
		if host, port, err = net.SplitHostPort(addr); err != nil {
			return err
		}
	}
	return adminDo(target, func(rc *redis.Client) error {
		return rc.ReplicaOf(ctx, host, port).Err()
	})
}

// waitReplication polls INFO replication at addr until ok accepts it.
func waitReplication(ctx context.Context, addr, what string, ok func(map[string]string) bool) error {
	var last map[string]string
	var lastErr error
	for {
		last, lastErr = replication(ctx, addr)
		if lastErr == nil && ok(last) {
			return nil
		}
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return fmt.Errorf("cluster: %s at %s: %w (last INFO %v, error %v)", what, addr, ctx.Err(), last, lastErr)
		}
	}
}

// isMaster accepts a master.
func isMaster(m map[string]string) bool { return m["role"] == "master" }

// linkedTo returns a check that accepts a replica of masterAddr whose link
// is up.
func linkedTo(masterAddr string) func(map[string]string) bool {
	return func(m map[string]string) bool {
		return m["role"] == "slave" && m["master_host"]+":"+m["master_port"] == masterAddr &&
			m["master_link_status"] == "up"
	}
}

// hasOnlineReplica returns a check that accepts a master that lists the
// replica at host:port (as the master sees it) as online.
func hasOnlineReplica(host, port string) func(map[string]string) bool {
	want := "ip=" + host + ",port=" + port + ","
	return func(m map[string]string) bool {
		if m["role"] != "master" {
			return false
		}
		for k, v := range m {
			if strings.HasPrefix(k, "slave") && strings.Contains(v, want) && strings.Contains(v, "state=online") {
				return true
			}
		}
		return false
	}
}
