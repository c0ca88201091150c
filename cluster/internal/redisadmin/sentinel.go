// Package redisadmin talks to Redis servers and sentinels on the
// providers' behalf, bypassing every proxy: readiness probes, replication
// state, REPLICAOF, and the sentinels' monitoring.
package redisadmin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinelMaster is the name the sentinels monitor the primary under.
const sentinelMaster = "lockstorm"

// disarmedDownAfter is the sentinels' down-after-milliseconds outside a
// failover fault: long enough that no other fault on the primary (a crash,
// a server pause, a clock jump) sets off a failover nobody asked for, so
// that every fault stays what the history says it is. Failover arms the
// sentinels with a short value; Failback disarms them.
const disarmedDownAfter = time.Hour

// sentinelFailoverTimeout is the sentinels' failover-timeout: how long
// a promotion may take before the sentinel gives up (and the minimum gap
// between two of its attempts is twice this).
const sentinelFailoverTimeout = 3 * time.Second

// SentinelConfig is the configuration lines that make a sentinel monitor
// the master at masterAddr ("host:port") with quorum, disarmed.
func SentinelConfig(masterAddr string, quorum int) string {
	host, port, _ := net.SplitHostPort(masterAddr)
	var b strings.Builder
	fmt.Fprintf(&b, "sentinel monitor %s %s %s %d\n", sentinelMaster, host, port, quorum)
	fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", sentinelMaster, disarmedDownAfter.Milliseconds())
	fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", sentinelMaster, sentinelFailoverTimeout.Milliseconds())
	return b.String()
}

// Sentinel is one running sentinel: a name for messages, its address on
// this host, and its log tail for errors.
type Sentinel struct {
	Name, Addr string
	Log        func() string
}

// sentinelClient connects to a sentinel with short timeouts and no retries.
func sentinelClient(addr string) *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{
		Addr: addr, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
		MaxRetries: -1, PoolSize: 1, DisableIdentity: true, Protocol: 2,
	})
}

// eachSentinel runs f on a client of every sentinel and joins the errors.
func eachSentinel(ss []Sentinel, f func(*redis.SentinelClient) error) error {
	var errs []error
	for _, s := range ss {
		sc := sentinelClient(s.Addr)
		if err := f(sc); err != nil {
			errs = append(errs, fmt.Errorf("sentinel %s: %w", s.Name, err))
		}
		_ = sc.Close()
	}
	return errors.Join(errs...)
}

// ms is a duration in whole milliseconds, as the sentinels' options take it.
func ms(d time.Duration) string { return fmt.Sprint(d.Milliseconds()) }

// SentinelSet applies SENTINEL SET name option value on every sentinel.
func SentinelSet(ctx context.Context, ss []Sentinel, option string, d time.Duration) error {
	return eachSentinel(ss, func(sc *redis.SentinelClient) error {
		return sc.Set(ctx, sentinelMaster, option, ms(d)).Err()
	})
}

// SentinelRemove makes every sentinel forget the master, stopping any
// failover it has in progress and any reconfiguration it would still do.
// A sentinel that no longer knows the master is fine.
func SentinelRemove(ctx context.Context, ss []Sentinel) error {
	return eachSentinel(ss, func(sc *redis.SentinelClient) error {
		err := sc.Remove(ctx, sentinelMaster).Err()
		if err != nil && strings.Contains(err.Error(), "No such master") {
			return nil
		}
		return err
	})
}

// SentinelMonitor makes every sentinel monitor the master at masterAddr
// ("ip:port") afresh, disarmed.
func SentinelMonitor(ctx context.Context, ss []Sentinel, masterAddr string, quorum int) error {
	host, port, err := net.SplitHostPort(masterAddr)
	if err != nil {
		return err
	}
	return eachSentinel(ss, func(sc *redis.SentinelClient) error {
		if err := sc.Monitor(ctx, sentinelMaster, host, port, fmt.Sprint(quorum)).Err(); err != nil {
			return err
		}
		if err := sc.Set(ctx, sentinelMaster, "down-after-milliseconds",
			ms(disarmedDownAfter)).Err(); err != nil {
			return err
		}
		return sc.Set(ctx, sentinelMaster, "failover-timeout",
			ms(sentinelFailoverTimeout)).Err()
	})
}

// SentinelsReady waits until every sentinel sees the master, knows the
// replica at replicaAddr with a working link, and knows every other
// sentinel (discovered through hello messages, every 2 s): only then can a
// failover reach its quorum and choose the replica.
func SentinelsReady(ctx context.Context, ss []Sentinel, replicaAddr string) error {
	var last error
	for {
		last = eachSentinel(ss, func(sc *redis.SentinelClient) error {
			m, err := sc.Master(ctx, sentinelMaster).Result()
			if err != nil {
				return err
			}
			if f := m["flags"]; f != "master" {
				return fmt.Errorf("master flags %q", f)
			}
			reps, err := sc.Replicas(ctx, sentinelMaster).Result()
			if err != nil {
				return err
			}
			found := false
			for _, r := range reps {
				if r["name"] == replicaAddr && r["flags"] == "slave" && r["master-link-status"] == "ok" {
					found = true
				}
			}
			if !found {
				return fmt.Errorf("replica %s not known yet (%d replicas)", replicaAddr, len(reps))
			}
			peers, err := sc.Sentinels(ctx, sentinelMaster).Result()
			if err != nil {
				return err
			}
			if len(peers) < len(ss)-1 {
				return fmt.Errorf("knows %d of %d other sentinels", len(peers), len(ss)-1)
			}
			return nil
		})
		if last == nil {
			return nil
		}
		if !Sleep(ctx, 50*time.Millisecond) {
			return fmt.Errorf("cluster: sentinels not ready: %v (%w)", last, ctx.Err())
		}
	}
}

// SentinelsSwitched waits until some sentinel names newMaster as the
// master: the end of its failover (+switch-master).
func SentinelsSwitched(ctx context.Context, ss []Sentinel, newMaster string) error {
	var seen []string
	for {
		for _, s := range ss {
			sc := sentinelClient(s.Addr)
			a, err := sc.GetMasterAddrByName(ctx, sentinelMaster).Result()
			_ = sc.Close()
			if err == nil && len(a) == 2 {
				if a[0]+":"+a[1] == newMaster {
					return nil
				}
				seen = a
			}
		}
		if !Sleep(ctx, 50*time.Millisecond) {
			return fmt.Errorf("cluster: sentinels did not promote %s (master still %v): %w; log of %s:\n%s",
				newMaster, seen, ctx.Err(), ss[0].Name, ss[0].Log())
		}
	}
}
