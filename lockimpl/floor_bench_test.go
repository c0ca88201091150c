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

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// floorWorkers is the concurrency issue 17's target is stated at.
const floorWorkers = 8

// floorRound is how many acquire+release cycles each worker runs per
// round of one side.
const floorRound = 250

// floorSide is one way of taking and giving back a lock on a key.
type floorSide struct {
	name  string
	cycle func(key string) error
}

// BenchmarkSingleVsFloor compares the single lock with the least any
// single-instance Redis lock can do, the floor: raw go-redis SET key
// token NX PX ttl then EVALSHA of the compare-and-delete script, with a
// fresh random token per cycle and no per-command deadline. Two sides in
// between add, one at a time, what Single does beyond the floor:
//
//   - get: SET ... NX PX ttl GET, the form Single sends (it tells the
//     lock its own token, from a resent SET, apart from another holder's);
//     a granted SET then replies nil, which go-redis returns as the error
//     redis.Nil and classifies (retry? bad connection?) like a failure.
//   - get-deadline: get, with each command under its own deadline
//     (Options.NodeTimeout), as Single bounds every command so that an
//     attempt's outcome is known within NodeTimeout.
//
// All run on one direct connection pool to the same node (no proxy), each
// of floorWorkers goroutines cycling on its own key (no contention: this
// is the lock's cost, not waiting). Each b.Loop iteration runs one round
// of every side, in a rotating order, so a change in the machine's load
// hits all of them.
//
// Reported per side: <side>-cycles/s (acquire+release cycles per second
// over all workers) and <side>-cpu-µs/cycle (CPU time of this process,
// the client side, not redis-server, per cycle); and single/floor, the
// ratio of their cycles/s (issue 17's target: >= 0.95). Nothing is
// asserted: the numbers depend on the machine and its load.
func BenchmarkSingleVsFloor(b *testing.B) {
	c := locktest.Direct(b, 1)[0]
	opt := lockimpl.Options{TTL: 10 * time.Second}
	sides := floorSides(b, c, lockimpl.NewSingle(c, opt), opt)
	took := make([]time.Duration, len(sides))
	cpu := make([]time.Duration, len(sides))
	rounds := 0
	for b.Loop() {
		for k := range sides {
			i := (rounds + k) % len(sides) // rotate which side goes first
			c0 := processCPU(b)
			d, err := floorRoundOf(b.Name(), i, sides[i].cycle)
			if err != nil {
				b.Fatal(err)
			}
			took[i] += d
			cpu[i] += processCPU(b) - c0
		}
		rounds++
	}
	cycles := float64(rounds * floorWorkers * floorRound)
	rate := func(i int) float64 { return cycles / took[i].Seconds() }
	for i, s := range sides {
		b.ReportMetric(rate(i), s.name+"-cycles/s")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/cycles, s.name+"-cpu-µs/cycle")
	}
	b.ReportMetric(rate(len(sides)-1)/rate(0), "single/floor")
	b.ReportMetric(0, "ns/op")
}

// floorSides are BenchmarkSingleVsFloor's sides on client c: the floor,
// get, get-deadline and single, each one acquire+release cycle on a key.
func floorSides(b *testing.B, c redis.UniversalClient, single *lockimpl.Single, opt lockimpl.Options) []floorSide {
	ctx := context.Background()
	timeout := opt.WithDefaults(1).NodeTimeout
	sha := loadRelease(b, c)
	release := func(ctx context.Context, key, token string) error {
		n, err := c.EvalSha(ctx, sha, []string{key}, token).Int64()
		if err != nil || n != 1 {
			return fmt.Errorf("EVALSHA release: %v %v", n, err)
		}
		return nil
	}
	setGet := func(ctx context.Context, key, token string) error {
		_, err := c.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: opt.TTL, Get: true}).Result()
		if err != redis.Nil {
			return fmt.Errorf("SET NX PX GET: %v", err)
		}
		return nil
	}
	return []floorSide{
		{"floor", func(key string) error {
			token := lockimpl.NewToken()
			ok, err := c.SetNX(ctx, key, token, opt.TTL).Result()
			if err != nil || !ok {
				return fmt.Errorf("SET NX PX: %v %v", ok, err)
			}
			return release(ctx, key, token)
		}},
		{"get", func(key string) error {
			token := lockimpl.NewToken()
			if err := setGet(ctx, key, token); err != nil {
				return err
			}
			return release(ctx, key, token)
		}},
		{"get-deadline", func(key string) error {
			token := lockimpl.NewToken()
			actx, cancel := context.WithTimeout(ctx, timeout)
			err := setGet(actx, key, token)
			cancel()
			if err != nil {
				return err
			}
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return release(rctx, key, token)
		}},
		{"single", func(key string) error {
			l, err := single.Acquire(ctx, key)
			if err != nil {
				return err
			}
			return single.Release(ctx, l)
		}},
	}
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
