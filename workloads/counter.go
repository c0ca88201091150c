package workloads

import (
	"context"

	"github.com/lockstorm/lockstorm/history"
)

// Counter is a shared resource that breaks under concurrent writes: the
// holder reads a counter, holds the lock for a drawn time, writes value+1,
// and releases. Both the read and the write carry the lease's fencing
// token, so a fencing resource keeps a stale holder out of the whole
// read-modify-write, not just its write. Two holders at once lose an
// update.
type Counter struct{ Opt Options }

// Name is "counter".
func (c *Counter) Name() string { return "counter" }

// Run loops rounds until ctx ends or the worker is told to stop.
func (c *Counter) Run(ctx context.Context, w *Worker) error {
	for w.Continue(ctx) {
		c.round(ctx, w)
		Sleep(ctx, w.Draw(0, w.Opt.Think), nil)
	}
	return nil
}

func (c *Counter) round(ctx context.Context, w *Worker) {
	lease, err := w.Acquire(ctx)
	if err != nil {
		return
	}
	defer w.Release(ctx, lease)
	v, err := w.Read(ctx, w.Opt.Key, lease.Fence)
	if err != nil {
		return
	}
	if !w.Hold(ctx, w.Draw(w.Opt.HoldMin, w.Opt.HoldMax), lease) {
		if ctx.Err() == nil {
			w.Lost(lease)
		}
		return
	}
	_ = w.Write(ctx, history.FWrite, w.Opt.Key, v+1, lease.Fence)
}
