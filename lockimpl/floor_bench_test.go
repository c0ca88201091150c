package lockimpl_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/internal/locktest"
)

// floorWorkers is the concurrency issue 17's target is stated at.
const floorWorkers = 8

// floorRound is how many acquire+release cycles each worker runs per
// round of one side.
const floorRound = 250

// BenchmarkSingleVsFloor compares the single lock with the least any
// single-instance Redis lock can do: raw go-redis SET key token NX PX ttl
// then EVALSHA of the compare-and-delete script, with a fresh random
// token per cycle and no per-command deadline. Both run on one direct
// connection pool to the same node (no proxy), each of floorWorkers
// goroutines cycling on its own key (no contention: this is the lock's
// cost, not waiting). Each b.Loop iteration is one round of each side,
// in alternating order, so a change in the machine's load hits both.
//
// Reported: floor-cycles/s and single-cycles/s (acquire+release cycles
// per second over all workers) and single/floor, their ratio (issue 17's
// target: >= 0.95), and floor-cpu-µs/cycle and single-cpu-µs/cycle, the
// CPU time this process (the client side, not redis-server) spent per
// cycle. Nothing is asserted: numbers depend on the machine.
func BenchmarkSingleVsFloor(b *testing.B) {
	c := locktest.Direct(b, 1)[0]
	ctx := context.Background()
	opt := lockimpl.Options{TTL: 10 * time.Second}
	sha := loadRelease(b, c)
	floor := func(key string) error {
		token := lockimpl.NewToken()
		ok, err := c.SetNX(ctx, key, token, opt.TTL).Result()
		if err != nil || !ok {
			return fmt.Errorf("floor SET NX PX: %v %v", ok, err)
		}
		n, err := c.EvalSha(ctx, sha, []string{key}, token).Int64()
		if err != nil || n != 1 {
			return fmt.Errorf("floor EVALSHA release: %v %v", n, err)
		}
		return nil
	}
	single := lockimpl.NewSingle(c, opt)
	lock := func(key string) error {
		l, err := single.Acquire(ctx, key)
		if err != nil {
			return err
		}
		return single.Release(ctx, l)
	}
	sides := [2]func(string) error{floor, lock}
	var took, cpu [2]time.Duration
	var cycles [2]int
	i := 0
	for b.Loop() {
		for k := range 2 {
			side := (i + k) % 2 // alternate which side goes first
			c0 := processCPU(b)
			d, err := floorRoundOf(b.Name(), side, sides[side])
			if err != nil {
				b.Fatal(err)
			}
			took[side] += d
			cpu[side] += processCPU(b) - c0
			cycles[side] += floorWorkers * floorRound
		}
		i++
	}
	fr := float64(cycles[0]) / took[0].Seconds()
	sr := float64(cycles[1]) / took[1].Seconds()
	b.ReportMetric(fr, "floor-cycles/s")
	b.ReportMetric(sr, "single-cycles/s")
	b.ReportMetric(sr/fr, "single/floor")
	b.ReportMetric(float64(cpu[0].Nanoseconds())/1e3/float64(cycles[0]), "floor-cpu-µs/cycle")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/1e3/float64(cycles[1]), "single-cpu-µs/cycle")
	b.ReportMetric(0, "ns/op")
}

// processCPU is the CPU time (user + system) this process has used so
// far: the client side of a round, since rounds do not overlap.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadRelease loads the release script (the compare-and-delete every lock
// here uses) on the node and returns its SHA1.
func loadRelease(b *testing.B, c redis.UniversalClient) string {
	src, err := os.ReadFile("lua/release.lua")
	if err != nil {
		b.Fatal(err)
	}
	sha, err := c.ScriptLoad(context.Background(), string(src)).Result()
	if err != nil {
		b.Fatal(err)
	}
	return sha
}

// floorRoundOf runs floorRound cycles on each of floorWorkers goroutines,
// worker w on its own key, and returns the wall time of the round.
func floorRoundOf(name string, side int, cycle func(key string) error) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, floorWorkers)
	start := time.Now()
	for w := range floorWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("floor-%s-%d-%d", name, side, w)
			for range floorRound {
				if err := cycle(key); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}
