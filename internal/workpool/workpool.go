// Package workpool runs numbered jobs on a bounded number of goroutines:
// the runs of a campaign (power, zoo), at most --parallel at once.
package workpool

import (
	"context"
	"sync"
)

// Run calls job(ctx, i) for i = 0..n-1 on at most parallel goroutines
// (at least one), handing the indices out in order. Once ctx ends no
// further index is handed out, and an index handed out as it ended is not
// run. Run returns when every job that started has returned.
func Run(ctx context.Context, n, parallel int, job func(ctx context.Context, i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(min(parallel, n), 1) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() == nil {
					job(ctx, i)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}
