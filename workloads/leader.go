package workloads

import (
	"context"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// leaderTerm is a round of "leader", a temporary single leader: the
// holder acts as leader for a drawn term, publishing a heartbeat with its
// fencing token every Options.Heartbeat while it believes it leads
// (extending the lease when the lock can, unless it trusts the lock's own
// watchdog: Options.TrustLostSignal), then steps down. Two processes
// whose heartbeats interleave in time led at once.
func leaderTerm(ctx context.Context, w *Worker, lease *lockimpl.Lease) {
	end := time.Now().Add(w.Draw(2*w.Opt.HoldMax, 4*w.Opt.HoldMax))
	ext, canExtend := w.Lock.(lockimpl.Extender)
	// A leader on a watchdog lock leaves the renewals to the watchdog
	// and leads until the lock says the lease is lost, as code on such
	// a lock does; a second, hand-made extend beside the watchdog's is
	// not how the lock is used (and a library without one answers it
	// "not supported", which ended the term).
	canExtend = canExtend && !w.Opt.TrustLostSignal
	for beat := int64(1); time.Now().Before(end) && ctx.Err() == nil; beat++ {
		if !w.Holds(lease) {
			w.Lost(lease)
			return
		}
		if err := w.Write(ctx, history.FLead, w.Opt.Key, beat, lease.Fence); err != nil {
			return
		}
		if canExtend && time.Until(lease.Validity()) < w.TTL/2 {
			if err := w.Extend(ctx, ext, lease); err != nil {
				return
			}
		}
		if !w.Hold(ctx, w.Opt.Heartbeat, lease) {
			if ctx.Err() == nil {
				w.Lost(lease)
			}
			return
		}
	}
}

// Extend records an extend of l.
func (w *Worker) Extend(ctx context.Context, e lockimpl.Extender, l *lockimpl.Lease) error {
	ctx, cancel := w.Clock.WithTimeout(ctx, w.Opt.OpTimeout)
	defer cancel()
	w.explicit(l, +1) // this op records the new validity itself
	defer w.explicit(l, -1)
	_, err := w.do(ctx, history.Op{F: history.FExtend, Key: l.Key, Token: l.Token, Fence: l.Fence, TTL: int64(w.TTL)}, func(ctx context.Context, op *history.Op) error {
		if err := e.Extend(ctx, l); err != nil {
			return err
		}
		op.Validity = w.Rec.At(l.Validity())
		return nil
	}, lockimpl.ErrNotHeld)
	if err == nil {
		w.renewed()
	}
	return err
}
