package workloads

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Cron is a job that must run once per tick on exactly one instance. Ticks
// come every Opt.Tick from the run's start; in the first half of each tick
// every client tries to take the tick's lock ("<key>-<tick>") and the one
// that gets it runs the job (a resource write of the tick). The lock is not
// released: it expires, as cron locks do, so that a slower instance cannot
// run the same tick again. The resource checker counts runs per tick.
type Cron struct{ Opt Options }

// Name is "cron".
func (c *Cron) Name() string { return "cron" }

// Run tries every tick until ctx ends or the worker is told to stop.
func (c *Cron) Run(ctx context.Context, w *Worker) error {
	tick := w.Opt.Tick
	for w.Continue(ctx) {
		now := time.Duration(w.Rec.Now())
		k := int64(now / tick)
		start := time.Duration(k) * tick
		if now-start < tick/2 {
			c.attempt(ctx, w, k)
		}
		// Wait for the next tick, with a little per-client jitter.
		next := time.Duration(k+1)*tick - time.Duration(w.Rec.Now())
		Sleep(ctx, next+w.Draw(0, tick/20), nil)
	}
	return nil
}

func (c *Cron) attempt(ctx context.Context, w *Worker, tick int64) {
	key := fmt.Sprintf("%s-%d", w.Opt.Key, tick)
	actx, cancel := context.WithTimeout(ctx, w.Opt.Tick/2)
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
