package workloads

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// runCron runs "cron", a job that must run once per tick on exactly one
// instance. Ticks come every Options.Tick from the run's start; for the
// first TTL/2 of each tick every client tries to take the tick's lock
// ("<key>-<tick>") and the one that gets it runs the job (a resource write
// of the tick). The lock is not released: it expires, as cron locks do. As
// the attempts stop before any lease taken by them can expire, a correct
// lock lets exactly one instance run each tick. The resource checker counts runs
// per tick. It tries every tick until ctx ends or the worker is told to
// stop.
func runCron(ctx context.Context, w *Worker) error {
	tick, attemptFor := w.Opt.Tick, w.TTL/2
	for w.Continue(ctx) {
		now := time.Duration(w.Rec.Now())
		k := int64(now / tick)
		start := time.Duration(k) * tick
		if now-start < attemptFor {
			cronAttempt(ctx, w, k, w.Rec.Start().Add(start+attemptFor))
		}
		// Wait for the next tick, with a little per-client jitter.
		next := time.Duration(k+1)*tick - time.Duration(w.Rec.Now())
		Sleep(ctx, next+w.Draw(0, attemptFor/10), nil)
	}
	return nil
}

// cronAttempt tries to take tick's lock until deadline (TTL/2 into the
// tick), and runs the job if it got the lock.
func cronAttempt(ctx context.Context, w *Worker, tick int64, deadline time.Time) {
	key := fmt.Sprintf("%s-%d", w.Opt.Key, tick)
	actx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	lease, err := w.AcquireKey(actx, key)
	if err != nil {
		return
	}
	if !w.Holds(lease) {
		w.Lost(lease)
		return
	}
	_ = w.Write(ctx, history.FRun, w.Opt.Key, tick, lease.Fence)
}
