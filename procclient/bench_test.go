package procclient_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/procclient"
)

// BenchmarkCycle compares acquire+release cycles of the single lock on one
// key, one worker, straight to the redis-server (no proxy): in-process
// (the lock on go-redis clients as the harness's slots make them) and
// process (the same lock in `lockstorm client`, behind a Client). It
// reports the median cycle ("p50-µs") and the throughput ("cycles/s").
func BenchmarkCycle(b *testing.B) {
	addr, err := cl.AdminAddr("n1")
	if err != nil {
		b.Fatal(err)
	}
	const ttl = time.Second
	b.Run("in-process", func(b *testing.B) {
		o := lockimpl.ClientOptions(addr)
		o.PoolSize, o.Protocol = 4, 2 // as protocol.Env.NewLock and the harness's slots
		rc := redis.NewClient(o)
		defer rc.Close()
		lock, err := lockimpl.New("single", []redis.UniversalClient{rc}, lockimpl.Options{TTL: ttl}.WithDefaults(1))
		if err != nil {
			b.Fatal(err)
		}
		cycles(b, lock)
	})
	b.Run("process", func(b *testing.B) {
		c, _ := start(b, procclient.Config{Argv: []string{lockstorm, "client", "--lock", "single"}, Env: environ(addr, ttl), TTL: ttl})
		cycles(b, c)
	})
}

// BenchmarkRoundTrip measures one request and its answer through a
// Client and `lockstorm client` without any redis command (an extend of a
// token the client does not hold, answered fail at once): the fixed cost
// of the protocol — pipes, JSON, both processes' scheduling — that a
// process client adds to every operation.
func BenchmarkRoundTrip(b *testing.B) {
	addr, err := cl.AdminAddr("n1")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := start(b, procclient.Config{Argv: []string{lockstorm, "client", "--lock", "single"}, Env: environ(addr, time.Second)})
	l := lockimpl.NewLease("k", "not-held", 0, time.Second, time.Now())
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := c.Extend(ctx, l); !errors.Is(err, lockimpl.ErrNotHeld) {
			b.Fatal(err)
		}
		cancel()
		took = append(took, time.Since(start))
	}
	report(b, took)
}

// cycles runs acquire+release cycles of one key with lock and reports
// their median and rate.
func cycles(b *testing.B, lock lockimpl.Locker) {
	k := key(b)
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		l, err := lock.Acquire(ctx, k)
		if err != nil {
			b.Fatal(err)
		}
		if err := lock.Release(ctx, l); err != nil {
			b.Fatal(err)
		}
		cancel()
		took = append(took, time.Since(start))
	}
	report(b, took)
}

// report reports the median of took and the rate of its cycles (or
// round trips).
func report(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(len(took))/b.Elapsed().Seconds(), "cycles/s")
}
