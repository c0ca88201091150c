package workpool

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunEveryJobAtMostParallel(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	seen := map[int]bool{}
	Run(context.Background(), 20, 3, func(_ context.Context, i int) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		seen[i] = true
		mu.Unlock()
	})
	if len(seen) != 20 || peak.Load() > 3 {
		t.Errorf("ran %d of 20 jobs, %d at once (at most 3)", len(seen), peak.Load())
	}
}

func TestRunStopsHandingOutWhenCtxEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	Run(ctx, 100, 2, func(_ context.Context, i int) {
		if ran.Add(1) == 4 {
			cancel()
		}
	})
	if n := ran.Load(); n < 4 || n > 6 {
		t.Errorf("%d jobs ran; want the 4 before the cancel and at most the 2 in flight", n)
	}
}
