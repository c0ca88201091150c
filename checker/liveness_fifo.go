package checker

import (
	"fmt"
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// fifoStream counts FIFO violations from records in time order; the
// events of one time are taken when the time moves on (invokes first,
// then completions in invoke order).
type fifoStream struct {
	l        *Liveness
	now      int64
	calls    []*lop
	rets     []*lop
	waiting  map[string][]*lop
	n        int
	al       anomalyList
	patch    map[*lop][]fifoPatch // anomalies naming an acquire still waiting, completed when it does
	asWaiter map[*lop][]int       // per waiter, the anomalies naming it overtaken (-1: not listed)
	recent   map[string][]*lop    // acquire oks per key a waiter may have been overtaken by
	recentN  int
}

type fifoPatch struct {
	idx  int // index in the anomaly list
	a, b *lop
}

func (f *fifoStream) call(x *lop) { x.waitKey = x.Key; f.calls = append(f.calls, x) }
func (f *fifoStream) ret(x *lop)  { f.rets = append(f.rets, x) }

// advance takes the events of the current time when the time moves on.
func (f *fifoStream) advance(t int64) {
	al := &f.al
	if t <= f.now {
		return
	}
	f.now = t
	if len(f.calls) == 0 && len(f.rets) == 0 {
		return
	}
	for _, x := range f.calls {
		f.waiting[x.waitKey] = append(f.waiting[x.waitKey], x)
	}
	sort.Slice(f.rets, func(i, j int) bool { return f.rets[i].Inv < f.rets[j].Inv })
	doneNow := map[*lop]bool{}
	for _, x := range f.rets {
		doneNow[x] = true
	}
	for _, e := range f.rets {
		f.waiting[e.waitKey] = slices.DeleteFunc(f.waiting[e.waitKey], func(a *lop) bool { return a == e })
		if e.waitKey != e.Key {
			f.moved(e)
		}
		delete(f.asWaiter, e)
		if e.Type != history.OK {
			continue
		}
		f.recent[e.Key] = append(f.recent[e.Key], e)
		f.recentN++
		for _, a := range f.waiting[e.Key] {
			if a.Call+int64(f.l.FIFOMargin) < e.Call && !doneNow[a] {
				f.overtaken(a, e)
			}
		}
	}
	f.prune()
	for _, x := range f.rets {
		for _, p := range f.patch[x] {
			al.list[p.idx].Ops = opIndices(&p.a.op, &p.b.op)
		}
		delete(f.patch, x)
	}
	f.calls, f.rets = f.calls[:0], f.rets[:0]
}

// overtaken adds the anomaly: e got the lock while a, invoked earlier,
// was still waiting.
func (f *fifoStream) overtaken(a, e *lop) {
	al := &f.al
	f.n++
	al.add(Anomaly{Kind: "fifo-violation", Fatal: f.l.RequireFIFO, Ops: opIndices(&a.op, &e.op),
		Text: fmt.Sprintf("key %q: process %d (invoked %s) got the lock at %s while process %d, waiting since %s, was still waiting",
			e.Key, e.Process, fmtTime(e.Call), fmtTime(e.Return), a.Process, fmtTime(a.Call))})
	at := -1
	if n := len(al.list); n > 0 && al.list[n-1].Kind == "fifo-violation" && al.counts["fifo-violation"] <= MaxAnomalies {
		f.patch[a] = append(f.patch[a], fifoPatch{n - 1, a, e})
		at = n - 1
	}
	f.asWaiter[a] = append(f.asWaiter[a], at)
}

// moved judges acquire a, whose completion names another key than its
// invoke (waitKey), again as waiting on a.Key: its anomalies on waitKey
// are withdrawn.
func (f *fifoStream) moved(a *lop) {
	for _, at := range f.asWaiter[a] {
		f.n--
		f.al.counts["fifo-violation"]--
		if at >= 0 {
			f.al.list[at].Kind = ""
		}
	}
	delete(f.asWaiter, a)
	for _, e := range f.recent[a.Key] {
		if a.Call+int64(f.l.FIFOMargin) < e.Call && a.Done > e.Return {
			f.overtaken(a, e)
		}
	}
}

// prune drops the acquire oks invoked no later than the oldest waiter.
func (f *fifoStream) prune() {
	if f.recentN < 1024 {
		return
	}
	oldest := Inf
	for _, ws := range f.waiting {
		for _, a := range ws {
			oldest = min(oldest, a.Call)
		}
	}
	f.recentN = 0
	for k, es := range f.recent {
		es = slices.DeleteFunc(es, func(e *lop) bool { return e.Call <= oldest })
		if len(es) == 0 {
			delete(f.recent, k)
			continue
		}
		f.recent[k] = es
		f.recentN += len(es)
	}
}

// list is the anomalies, without those withdrawn (see moved).
func (f *fifoStream) list() []Anomaly {
	return slices.DeleteFunc(f.al.list, func(a Anomaly) bool { return a.Kind == "" })
}
