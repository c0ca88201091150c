package checker

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// streamProgress is keyProgress built one acquire at a time, with the
// leases recovery reads.
type streamProgress struct {
	keyProgress
	lastOKLease *liveLease
	unknownL    []*liveLease
}

// acquire follows one completed acquire x (op o, lease l unless it
// failed).
func (s *liveStream) acquire(x *lop, o *op, l *liveLease) {
	r := &s.r
	r.maxTTL = max(r.maxTTL, x.TTL)
	if t, ok := s.lastFail[x.Process]; ok {
		r.retryGap = max(r.retryGap, x.Call-t)
		delete(s.lastFail, x.Process)
	}
	r.d.Acquires.count(x.Type)
	switch x.Type {
	case history.OK:
		s.waits.add(x.Return - x.Call)
	case history.Fail:
		s.lastFail[x.Process] = x.Done
	}
	if x.Ret >= 0 {
		s.waitsAny.add(x.Done - x.Call)
	}
	if mw := r.l.MaxWait; mw > 0 && x.Ret >= 0 && x.Done-x.Call > int64(mw) {
		r.d.Starved++
		r.al.add(Anomaly{Kind: "starvation", Fatal: true, Ops: o.indices(),
			Text: fmt.Sprintf("key %q: process %d waited %s for the lock (%s), more than %s", x.Key, x.Process, fmtDur(x.Done-x.Call), x.Type, mw)})
	}
	// progress, with the heal so far (see heal)
	p := entry(s.prog, x.Key, func() *streamProgress { return &streamProgress{} })
	if x.Call > s.healed && p.invokedAfter == nil {
		p.invokedAfter = heapOp(o)
	}
	switch x.Type {
	case history.OK:
		if x.Return > s.healed {
			p.okAfter++
		}
		if p.lastOK == nil || x.Return > p.lastOK.Return {
			if old := p.lastOKLease; old != nil && old.hasHoldEnd {
				s.retire(old)
			}
			p.lastOK, p.lastOKLease = heapOp(o), l
			p.fails = slices.DeleteFunc(p.fails, func(f *op) bool { return f.Call <= x.Return })
		}
	case history.Fail:
		if p.lastOK == nil || x.Call > p.lastOK.Return {
			p.fails = append(p.fails, heapOp(o))
		}
	default:
		p.unknown = append(p.unknown, heapOp(o))
		p.unknownL = append(p.unknownL, l)
	}
}

func heapOp(o *op) *op { c := *o; return &c }

// keepOp copies o into *dst, reusing the copy there (no one else holds it).
func keepOp(dst **op, o *op) {
	if *dst == nil {
		*dst = new(op)
	}
	**dst = *o
}

// heal moves the last heal to end: recovery counts from it.
func (s *liveStream) heal(end int64) {
	s.healed = end
	for _, p := range s.prog {
		p.invokedAfter, p.okAfter = nil, 0
	}
}

// result ends the stream (windows: the history's fault windows) and
// gives Check's result.
func (s *liveStream) result(windows []Window) Result {
	for _, p := range s.ops.Flush() {
		x := s.queue[p.Seq-s.base]
		x.done = true // never completed: info, done at the end
		x.Done = s.r.end
		if x.F == history.FAcquire && s.fifo != nil {
			s.fifo.ret(x)
		}
	}
	s.deliver()
	if s.fifo != nil {
		s.fifo.advance(Inf)
	}
	r := &s.r
	r.windows = windows
	for _, w := range windows {
		r.d.HealedAt = max(r.d.HealedAt, w.End)
	}
	if r.d.HealedAt > s.healed { // an unhealed window ends at the end
		s.heal(r.d.HealedAt)
	}
	if n := r.d.Acquires.OK + r.d.Acquires.Fail + r.d.Acquires.Info; n > 0 {
		r.d.SuccessRate = float64(r.d.Acquires.OK) / float64(n)
	}
	r.d.Wait, r.d.WaitAny, r.d.Hold = s.waits.percentiles(), s.waitsAny.percentiles(), s.holds.percentiles()
	r.d.Windows = s.win.availability(windows, r.end)
	// recovery reads the leases of the ops it keeps by their op.Lease
	r.leases = map[int]*liveLease{}
	lease := func(o *op, l *liveLease) {
		if l == nil {
			return
		}
		o.Lease = len(r.leases)
		r.leases[o.Lease] = l
	}
	prog := map[string]*keyProgress{}
	for k, p := range s.prog {
		if p.lastOK != nil {
			lease(p.lastOK, p.lastOKLease)
		}
		for i, u := range p.unknown {
			lease(u, p.unknownL[i])
		}
		r.d.OKAfterHeal += p.okAfter
		prog[k] = &p.keyProgress
	}
	r.recovery(prog)
	r.stuck(s.stuck)
	if f := s.fifo; f != nil { // after recovery's, as Check adds them
		r.d.FIFOViolations = f.n
		list := f.list()
		for _, a := range list {
			r.al.add(a)
		}
		if n := f.al.counts["fifo-violation"] - len(list); n > 0 {
			r.al.counts["fifo-violation"] += n
		}
	}
	return r.result()
}

// latencies is a sample of latencies (ns), 4 bytes a latency below 4.3 s.
type latencies struct {
	small []uint32
	big   []int64 // >= 1<<32, or negative
}

func (l *latencies) add(v int64) {
	if v >= 0 && v < 1<<32 {
		l.small = append(l.small, uint32(v))
	} else {
		l.big = append(l.big, v)
	}
}

// percentiles is percentiles() of the sample.
func (l *latencies) percentiles() Percentiles {
	if len(l.big) > 0 && slices.Min(l.big) < 0 { // cannot happen in a valid history
		all := slices.Clone(l.big)
		for _, v := range l.small {
			all = append(all, int64(v))
		}
		return percentiles(all)
	}
	slices.Sort(l.small)
	slices.Sort(l.big)
	return percentilesOf(len(l.small)+len(l.big), func(i int) int64 { // every small one is below every big one
		if i < len(l.small) {
			return int64(l.small[i])
		}
		return l.big[i-len(l.small)]
	})
}
