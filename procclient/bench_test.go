package procclient_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/procclient"
	"github.com/lockstorm/lockstorm/protocol"
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

// BenchmarkCycleFloor is BenchmarkCycle/process with the least harness
// side there can be: one goroutine writes each request to `lockstorm
// client` and reads its answer (protocol.Conn), with no reader goroutine,
// no outcome mapping, no timeouts. What Client costs is the difference.
func BenchmarkCycleFloor(b *testing.B) {
	addr, err := cl.AdminAddr("n1")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(lockstorm, "client", "--lock", "single")
	cmd.Env = append(os.Environ(), environ(addr, time.Second)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	conn := protocol.NewConn(in, out)
	k := key(b)
	var id int64
	roundTrip := func(r protocol.Request) protocol.Answer {
		id++
		r.ID, r.Key, r.TimeoutMillis = id, k, 1000
		if err := conn.Send(r); err != nil {
			b.Fatal(err)
		}
		l, _, err := conn.Recv()
		if err != nil || l.Answer == nil || l.Answer.Type != protocol.TypeOK {
			b.Fatalf("%s: %v %+v", r.Op, err, l.Answer)
		}
		return *l.Answer
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		a := roundTrip(protocol.Request{Op: protocol.OpAcquire, TTLMillis: 1000})
		roundTrip(protocol.Request{Op: protocol.OpRelease, Token: a.Token})
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
