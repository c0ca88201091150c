package workloads

import (
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// leaseWatch is what the worker knows about one lease it was handed, for
// recording the renewals a lock makes through Lease.SetValidity.
type leaseWatch struct {
	mu       sync.Mutex
	explicit int  // recorded extends in progress (RenewHook, Worker.Extend)
	released bool // Release has started: nothing more is recorded
}

// watch returns l's state, creating it (and installing the validity
// observer) on first use.
func (w *Worker) watch(l *lockimpl.Lease) *leaseWatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watches == nil {
		w.watches = map[*lockimpl.Lease]*leaseWatch{}
	}
	lw := w.watches[l]
	if lw == nil {
		lw = &leaseWatch{}
		w.watches[l] = lw
		l.ObserveValidity(func(old, v time.Time) { w.observed(l, lw, old, v) })
	}
	return lw
}

// explicit marks a recorded extend of l as in progress (delta +1) or over
// (-1): SetValidity calls inside it are already recorded by that op.
func (w *Worker) explicit(l *lockimpl.Lease, delta int) {
	var lw *leaseWatch
	if delta > 0 {
		lw = w.watch(l)
	} else {
		w.mu.Lock()
		lw = w.watches[l]
		w.mu.Unlock()
		if lw == nil {
			return // released meanwhile
		}
	}
	lw.mu.Lock()
	lw.explicit += delta
	lw.mu.Unlock()
}

// unwatch stops recording l's renewals (its release has started).
func (w *Worker) unwatch(l *lockimpl.Lease) {
	w.mu.Lock()
	lw := w.watches[l]
	delete(w.watches, l)
	w.mu.Unlock()
	l.ObserveValidity(nil)
	if lw != nil {
		lw.mu.Lock()
		lw.released = true
		lw.mu.Unlock()
	}
}

// observed records a renewal the lock made by SetValidity outside any
// recorded extend: an extend op pair (Detail "observed") under the lease's
// watchdog process, ok with the new validity. Only a deadline moved
// forward is a renewal. The invoke is stamped at new validity − TTL (and
// never after now): a lock that keeps its promise (validity ≤ send time +
// TTL − drift) sent the renewal no earlier than that, so the lock
// checker's lease for it, invoke + TTL − allowance, never outlasts the
// server's.
func (w *Worker) observed(l *lockimpl.Lease, lw *leaseWatch, old, v time.Time) {
	if !v.After(old) || w.isHalted() {
		return
	}
	lw.mu.Lock()
	defer lw.mu.Unlock() // one op pair at a time per lease: its process is single-threaded
	if lw.explicit > 0 || lw.released {
		return
	}
	ttl := l.TTL
	if ttl <= 0 {
		ttl = w.TTL
	}
	now := w.Rec.Now()
	call := min(now, w.Rec.At(v)-int64(ttl))
	op := history.Op{Type: history.Invoke, Process: w.dogProcess(l), Client: w.Slot, F: history.FExtend, Key: l.Key, Token: l.Token,
		Fence: l.Fence, TTL: int64(ttl), Detail: "observed: Lease.SetValidity"}
	w.Rec.RecordAt(op, call)
	op.Type, op.Validity = history.OK, w.Rec.At(v)
	w.Rec.Record(op)
	w.renewed()
}

// dogProcess is the process id under which l's renewals are recorded: one
// per lease, beside the holder's (a Jepsen process is single-threaded).
func (w *Worker) dogProcess(l *lockimpl.Lease) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dogs == nil {
		w.dogs = map[*lockimpl.Lease]int{}
	}
	p, ok := w.dogs[l]
	if !ok {
		p = w.Procs.Fresh()
		w.dogs[l] = p
	}
	return p
}
