package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// StuckWatch finds, from records in time order, a key on which the lock
// stopped being granted while clients kept asking and no fault was in
// effect: "lock-stuck", declared at the completion of a failed acquire on
// key k when no fault window is open and at least StuckFails acquires of
// k invoked after `from` failed (each proven: not cancelled by an unknown
// acquire invoked before its completion, and every acquire of k invoked
// before it completed), the latest Span or more after `from`. `from` is
// when nothing may hold k: the last heal, k's latest acquire ok's Return
// and each unknown acquire's completion since, + the longest TTL. One
// anomaly per key until an acquire of it succeeds or a fault starts;
// fatal when Liveness.RequireRecovery.
type StuckWatch struct {
	// Span is how long a key must go ungranted past from (0: as
	// Liveness.NeverFreedAfter).
	Span time.Duration

	maxTTL  int64
	win     WindowPairer   // the fault windows
	open    int            // fault windows whose stop's last record has not come
	quietAt int64          // when the last one closed
	flight  history.Pairer // the lock ops in flight
	keys    map[string]*stuckKey
	found   []Anomaly
}

// stuck adds the watch's anomalies, fatal when recovery is required.
func (r *livenessRun) stuck(w *StuckWatch) {
	for _, a := range w.Found() {
		a.Fatal = r.l.RequireRecovery
		r.al.add(a)
	}
}

// StuckFails is how many ungranted acquires a stuck key needs.
const StuckFails = 3

// stuckKey is one key's state since its latest acquire ok.
type stuckKey struct {
	okAt, okInv int64 // the latest acquire ok's Return and record (-1: none)
	okProc      int
	okToken     string
	released    bool        // its holder's release ok was seen
	unkEnd      int64       // when the leases of the unknown acquires since ran out
	fails       []stuckFail // acquires invoked after from that failed, completion order
	declared    bool
}

// stuckFail is a failed acquire: its completion time, its records.
type stuckFail struct{ done, inv, idx int64 }

// NewStuckWatch starts a watch.
func NewStuckWatch(span time.Duration) *StuckWatch {
	return &StuckWatch{Span: span, keys: map[string]*stuckKey{}}
}

// Add takes the next record; it returns the anomaly the record proves,
// if any (also kept: Found).
func (w *StuckWatch) Add(o *history.Op) (Anomaly, bool) {
	if o.IsNemesis() {
		w.nemesis(o)
		return Anomaly{}, false
	}
	switch o.F {
	case history.FAcquire, history.FRelease, history.FExtend:
	default:
		return Anomaly{}, false
	}
	p, ok := w.flight.Add(o)
	switch {
	case o.Type == history.Invoke:
		if o.F == history.FAcquire {
			w.maxTTL = max(w.maxTTL, o.TTL)
		}
	case !ok || p.Invoke.F != o.F && (o.F == history.FAcquire || p.Invoke.F == history.FAcquire):
	case o.F == history.FAcquire:
		return w.acquire(p.Invoke, o)
	default:
		w.release(p.Invoke, o)
	}
	return Anomaly{}, false
}

// Found is every anomaly found so far, in the order found.
func (w *StuckWatch) Found() []Anomaly { return w.found }

// nemesis follows the fault windows, open until the stop's last record.
func (w *StuckWatch) nemesis(o *history.Op) {
	switch _, ev := w.win.Add(o); ev {
	case WindowOpened:
		w.open++
		for _, k := range w.keys {
			k.fails, k.declared = k.fails[:0], false
		}
	case WindowStopped:
		w.open--
		if w.open == 0 {
			w.quietAt = o.Time
		}
	}
}

func (w *StuckWatch) key(k string) *stuckKey {
	return entry(w.keys, k, func() *stuckKey { return &stuckKey{okAt: -1, okInv: -1} })
}

// release follows the releases and extends ok of each key's latest holder.
func (w *StuckWatch) release(inv, o *history.Op) {
	s := w.key(inv.Key)
	if o.Type != history.OK || s.okInv < 0 || (inv.Token != s.okToken && (inv.Token != "" || o.Process != s.okProc)) {
		return
	}
	if o.F == history.FRelease {
		s.released = true
		return
	}
	s.okAt = max(s.okAt, o.Time)
	s.fails, s.declared = s.fails[:0], false
}

// acquire follows acquire o, completing inv.
func (w *StuckWatch) acquire(inv, o *history.Op) (Anomaly, bool) {
	key := cmp.Or(inv.Key, o.Key)
	s := w.key(key)
	switch o.Type {
	case history.OK:
		*s = stuckKey{okAt: o.Time, okInv: o.Index, okProc: o.Process, okToken: o.Token}
		return Anomaly{}, false
	case history.Fail:
		if w.open == 0 && inv.Time > w.from(s) {
			s.fails = append(s.fails, stuckFail{done: o.Time, inv: inv.Index, idx: o.Index})
		}
	default: // it may hold the key from its invoke until a lease from now runs out
		s.unkEnd = max(s.unkEnd, o.Time+w.maxTTL)
		s.fails = slices.DeleteFunc(s.fails, func(f stuckFail) bool { return f.done >= inv.Time })
	}
	return w.judge(key, s, o)
}

// from is when nothing may hold key s any more (see StuckWatch).
func (w *StuckWatch) from(s *stuckKey) int64 {
	from := max(w.quietAt, s.unkEnd)
	if s.okAt >= 0 {
		from = max(from, s.okAt+w.maxTTL)
	}
	return from
}

// judge declares key s stuck at record now when its proven failures are
// enough.
func (w *StuckWatch) judge(key string, s *stuckKey, now *history.Op) (Anomaly, bool) {
	if s.declared || w.open > 0 {
		return Anomaly{}, false
	}
	pending := Inf
	for c := range w.flight.Invokes() {
		if c.F == history.FAcquire && (c.Key == key || c.Key == "") {
			pending = min(pending, c.Time)
		}
	}
	n := slices.IndexFunc(s.fails, func(f stuckFail) bool { return f.done >= pending })
	if n < 0 {
		n = len(s.fails)
	}
	from := w.from(s)
	if n < StuckFails || s.fails[n-1].done-from < w.span() {
		return Anomaly{}, false
	}
	s.declared = true
	a := Anomaly{Kind: "lock-stuck", Ops: w.ops(s, n, now.Index), Text: w.text(key, s, n, from, now.Time)}
	w.found = append(w.found, a)
	return a, true
}

func (w *StuckWatch) span() int64 { return spanOr(w.Span, w.maxTTL) }

// spanOr is d in ns, or if not positive 3 × maxTTL (3 s without TTLs).
func spanOr(d time.Duration, maxTTL int64) int64 {
	switch {
	case d > 0:
		return int64(d)
	case maxTTL > 0:
		return 3 * maxTTL
	}
	return int64(3 * time.Second)
}

// ops names the latest acquire ok (if any), the first failed acquire, the
// completion of the n-th and the record that proved it.
func (w *StuckWatch) ops(s *stuckKey, n int, proof int64) []int64 {
	var ops []int64
	if s.okInv >= 0 {
		ops = append(ops, s.okInv)
	}
	ops = append(ops, s.fails[0].inv, s.fails[n-1].idx)
	if proof != s.fails[n-1].idx {
		ops = append(ops, proof)
	}
	return ops
}

func (w *StuckWatch) text(key string, s *stuckKey, n int, from, at int64) string {
	who := "no acquire of it ever succeeded"
	switch {
	case s.okInv >= 0 && s.released:
		who = fmt.Sprintf("process %d took it at %s and released it, and nobody got it since (a stuck queue or key)", s.okProc, fmtTime(s.okAt))
	case s.okInv >= 0:
		who = fmt.Sprintf("lock never freed: process %d took it at %s and did not release it", s.okProc, fmtTime(s.okAt))
	}
	return fmt.Sprintf("key %q: %s; %d acquires failed with no fault in effect and nobody able to hold it over %s since %s, past its last lease (%s after it: the watch's span)",
		key, who, n, fmtDur(at-from), fmtTime(from), fmtDur(w.span()))
}
