package workloads

import (
	"context"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// apiRound is a round of "api", a rate-limited external API that allows
// one caller at a time: the holder enters it (the resource counts callers
// inside), stays a drawn time, and leaves. A caller that finds another
// inside is a violation.
func apiRound(ctx context.Context, w *Worker, lease *lockimpl.Lease) {
	if !w.Holds(lease) {
		w.Lost(lease)
		return
	}
	if err := w.Enter(ctx, w.Opt.Key, lease.Fence); err != nil {
		return
	}
	if !w.Hold(ctx, w.Draw(w.Opt.HoldMin, w.Opt.HoldMax), lease) && ctx.Err() == nil {
		w.Lost(lease)
	}
	w.Leave(ctx, w.Opt.Key)
}

// Enter records an API entry; the ok completion's Value is the number of
// callers inside after entering (more than 1 is a violation).
func (w *Worker) Enter(ctx context.Context, key string, fence int64) error {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout)
	defer cancel()
	_, err := w.do(ctx, history.Op{F: history.FEnter, Key: key, Fence: fence}, func(ctx context.Context, op *history.Op) error {
		n, err := w.Resource.Enter(ctx, key, fence)
		op.Value = int64(n)
		return staleAsFail(err)
	}, errStale)
	return err
}

// Leave records an API exit. It runs even after the worker's context ended
// (a caller inside must leave), but not for a crashed process.
func (w *Worker) Leave(ctx context.Context, key string) {
	if ctx.Err() != nil {
		return
	}
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout+time.Second)
	defer cancel()
	w.do(ctx, history.Op{F: history.FLeave, Key: key}, func(ctx context.Context, op *history.Op) error {
		n, err := w.Resource.Leave(ctx, key)
		op.Value = int64(n)
		return err
	})
}
