package workloads

import (
	"context"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// counterRound is a round of "counter", a shared resource that breaks
// under concurrent writes: the holder reads a counter, holds the lock for
// a drawn time, writes value+1, and releases. Both the read and the write
// carry the lease's fencing token, so a fencing resource keeps a stale
// holder out of the whole read-modify-write, not just its write. Two
// holders at once lose an update.
func counterRound(ctx context.Context, w *Worker, lease *lockimpl.Lease) {
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
