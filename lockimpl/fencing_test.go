package lockimpl_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/internal/locktest"
)

// TestFencingMonotonic: under contention from four clients, the fencing
// tokens seen inside the critical sections, in the order the sections ran,
// strictly increase. For fenced-redlock two clients are cut from different
// nodes so their quorums differ and failed partial attempts push node
// counters apart: the case where "max of the quorum's counters" alone is
// not monotonic and the ratchet round is needed.
func TestFencingMonotonic(t *testing.T) {
	locktest.Heal(t)
	for _, name := range []string{"fenced", "fenced-redlock"} {
		t.Run(name, func(t *testing.T) {
			locktest.Heal(t)
			ctx := context.Background()
			if name == "fenced-redlock" {
				if err := locktest.Cluster.Cut(ctx, append(cluster.Links("c1", "n1", "n2"), cluster.Links("c2", "n4", "n5")...)); err != nil {
					t.Fatal(err)
				}
			}
			key := locktest.Key(t)
			opt := lockimpl.Options{TTL: 500 * time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond}
			const rounds = 16
			var mu sync.Mutex
			var fences []int64
			var wg sync.WaitGroup
			for _, c := range locktest.Clients {
				lk := locktest.NewLock(t, name, c, opt)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range rounds {
						actx, cancel := context.WithTimeout(ctx, 5*time.Second)
						l, err := lk.Acquire(actx, key)
						cancel()
						if err != nil {
							t.Errorf("%s: %v", c, err)
							return
						}
						mu.Lock()
						fences = append(fences, l.Fence)
						mu.Unlock()
						if err := lk.Release(ctx, l); err != nil {
							t.Errorf("%s release: %v", c, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if len(fences) != rounds*len(locktest.Clients) {
				t.Fatalf("%d grants", len(fences))
			}
			for i := 1; i < len(fences); i++ {
				if fences[i] <= fences[i-1] {
					t.Fatalf("fence %d after %d (grant %d): not strictly increasing: %v", fences[i], fences[i-1], i, fences)
				}
			}
			t.Logf("fences: %v", fences)
		})
	}
}
