package redisadmin

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
)

// Do runs f on a fresh, short-lived client of the Redis server at
// addr (a process's own address). A fresh client per step keeps nothing
// open that a sentinel's CLIENT KILL or a role change would break.
func Do(addr string, f func(*redis.Client) error) error {
	rc := redis.NewClient(&redis.Options{
		Addr: addr, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 2 * time.Second,
		MaxRetries: -1, PoolSize: 1, DisableIdentity: true, Protocol: 2,
	})
	defer rc.Close()
	return f(rc)
}

// Replication returns the fields of INFO Replication of the server at addr.
func Replication(ctx context.Context, addr string) (map[string]string, error) {
	var out map[string]string
	err := Do(addr, func(rc *redis.Client) error {
		s, err := rc.Info(ctx, "Replication").Result()
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

// ReplicaOf sends REPLICAOF host port (or NO ONE when addr is "") to the
// server at target.
func ReplicaOf(ctx context.Context, target, addr string) error {
	host, port := "NO", "ONE"
	if addr != "" {
		var err error
		if host, port, err = net.SplitHostPort(addr); err != nil {
			return err
		}
	}
	return Do(target, func(rc *redis.Client) error {
		return rc.ReplicaOf(ctx, host, port).Err()
	})
}

// WaitReplication polls INFO Replication at addr until ok accepts it.
func WaitReplication(ctx context.Context, addr, what string, ok func(map[string]string) bool) error {
	var last map[string]string
	var lastErr error
	for {
		last, lastErr = Replication(ctx, addr)
		if lastErr == nil && ok(last) {
			return nil
		}
		if !Sleep(ctx, 20*time.Millisecond) {
			return fmt.Errorf("cluster: %s at %s: %w (last INFO %v, error %v)", what, addr, ctx.Err(), last, lastErr)
		}
	}
}

// IsMaster accepts a master.
func IsMaster(m map[string]string) bool { return m["role"] == "master" }

// LinkedTo returns a check that accepts a replica of masterAddr whose link
// is up.
func LinkedTo(masterAddr string) func(map[string]string) bool {
	return func(m map[string]string) bool {
		return m["role"] == "slave" && m["master_host"]+":"+m["master_port"] == masterAddr &&
			m["master_link_status"] == "up"
	}
}

// HasOnlineReplica returns a check that accepts a master that lists the
// replica at host:port (as the master sees it) as online.
func HasOnlineReplica(host, port string) func(map[string]string) bool {
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

// Sleep waits d unless ctx ends first.
func Sleep(ctx context.Context, d time.Duration) bool { return ctxtime.Sleep(ctx, d, nil) }
