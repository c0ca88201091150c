package cluster_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// rtt measures n PING round trips: their median and the fastest.
func rtt(t *testing.T, rc *redis.Client, n int) (median, fastest time.Duration) {
	t.Helper()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		clustertest.Must(t, rc.Ping(context.Background()).Err())
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[0]
}

// result is the outcome of a command run in the background.
type result struct {
	val string
	err error
	at  time.Time
}

// async runs f in a goroutine and delivers its result.
func async(f func() (string, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err, time.Now()}
	}()
	return ch
}

// stalls asserts that nothing arrives on ch for d.
func stalls(t *testing.T, ch <-chan result, d time.Duration, what string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s returned while it should stall: %q, %v", what, r.val, r.err)
	case <-time.After(d):
	}
}

// completes waits for a result on ch, failing after d.
func completes(t *testing.T, ch <-chan result, d time.Duration, what string) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(d):
		t.Fatalf("%s did not complete within %v", what, d)
	}
	return result{}
}
