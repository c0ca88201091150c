package workloads

import (
	"context"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// API is a rate-limited external API that allows one caller at a time: the
// holder enters it (the resource counts callers inside), stays a drawn
// time, and leaves. A caller that finds another inside is a violation.
type API struct{ Opt Options }

// Name is "api".
func (a *API) Name() string { return "api" }

// Run loops rounds until ctx ends or the worker is told to stop.
func (a *API) Run(ctx context.Context, w *Worker) error {
	for w.Continue(ctx) {
		a.round(ctx, w)
		Sleep(ctx, w.Draw(0, w.Opt.Think), nil)
	}
	return nil
}

func (a *API) round(ctx context.Context, w *Worker) {
	lease, err := w.Acquire(ctx)
	if err != nil {
		return
	}
	defer w.Release(ctx, lease)
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
	ctx, cancel := context.WithTimeout(ctx, w.Opt.OpTimeout)
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
	ctx, cancel := context.WithTimeout(ctx, w.Opt.OpTimeout+time.Second)
	defer cancel()
	w.do(ctx, history.Op{F: history.FLeave, Key: key}, func(ctx context.Context, op *history.Op) error {
		n, err := w.Resource.Leave(ctx, key)
		op.Value = int64(n)
		return err
	})
}
