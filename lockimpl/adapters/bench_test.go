package adapters_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// Benchmarks talk to the nodes directly (locktest.Direct, no toxiproxy) for
// every lock alike, so the numbers measure the locks and Redis, not the
// in-process proxies. Each worker cycles acquire+release on its own key
// (no contention: this is the cost of the lock, not of waiting for it).
// Reported: cycles/s and p50/p99 latency of one cycle in microseconds.

// cycles runs b.N cycles spread over workers and reports the metrics.
func cycles(b *testing.B, workers int, cycle func(ctx context.Context, key string) error) {
	ctx := context.Background()
	var next atomic.Int64
	lat := make([][]time.Duration, workers)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("bench-%s-%d", b.Name(), w)
			for next.Add(1) <= int64(b.N) {
				t := time.Now()
				if err := cycle(ctx, key); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	q := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) }
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "cycles/s")
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// lockCycle is one acquire+release through a lockimpl.Locker.
func lockCycle(l lockimpl.Locker) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error {
		lease, err := l.Acquire(ctx, key)
		if err != nil {
			return err
		}
		return l.Release(ctx, lease)
	}
}

// BenchmarkLocks compares the floor (raw SET NX PX + EVALSHA release),
// single, bsm/redislock, redlock and redsync at 5 nodes, at 1 and 8
// workers, in one run against the same nodes.
func BenchmarkLocks(b *testing.B) {
	opt := lockimpl.Options{TTL: 10 * time.Second}
	one, five := locktest.Direct(b, 1), locktest.Direct(b, 5)
	ctx := context.Background()
	src, err := os.ReadFile("../lua/release.lua") // the compare-and-delete of every lock
	if err != nil {
		b.Fatal(err)
	}
	sha, err := one[0].ScriptLoad(ctx, string(src)).Result()
	if err != nil {
		b.Fatal(err)
	}
	raw := func(ctx context.Context, key string) error {
		token := lockimpl.NewToken()
		ok, err := one[0].SetNX(ctx, key, token, opt.TTL).Result()
		if err != nil || !ok {
			return fmt.Errorf("raw set: %v %v", ok, err)
		}
		n, err := one[0].EvalSha(ctx, sha, []string{key}, token).Int64()
		if err != nil || n != 1 {
			return fmt.Errorf("raw release: %v %v", n, err)
		}
		return nil
	}
	redlock5, err := lockimpl.NewRedlock(five, opt)
	if err != nil {
		b.Fatal(err)
	}
	redsync5, err := adapters.NewRedsync(five, opt)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name  string
		cycle func(ctx context.Context, key string) error
	}{
		{"raw", raw},
		{"single", lockCycle(lockimpl.NewSingle(one[0], opt))},
		{"redislock", lockCycle(adapters.NewRedislock(one[0], opt))},
		{"redlock5", lockCycle(redlock5)},
		{"redsync5", lockCycle(redsync5)},
	}
	for _, workers := range []int{1, 8} {
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/w%d", c.name, workers), func(b *testing.B) {
				cycles(b, workers, c.cycle)
			})
		}
	}
}
