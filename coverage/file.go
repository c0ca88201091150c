package coverage

import (
	"fmt"
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// ComputeFile is Compute of the JSONL history at path, read in two
// streamed passes instead of held in memory: the first (SummarizeFile)
// finds the fault windows from the nemesis records, a few per fault; the
// second (EachRecord, only when there are windows) follows each
// client's lease and operation in flight and matches every state
// interval, as it closes, against the windows it overlaps. Memory is
// bounded by the windows and the processes, not by the history. The
// report is Compute's for the same history.
func ComputeFile(path string, in Input) (*Report, error) {
	sum, err := SummarizeFile(path)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	nem, end, clientRecs, slotted := sum.Nemesis, sum.End, sum.ClientRecords, sum.Slotted
	rep := &Report{Requested: slices.Clone(in.Requested)}
	if rep.Requested == nil {
		rep.Requested = []string{}
	}
	judged := clientRecs == 0 || slotted > 0
	if !judged {
		rep.Unjudged = noSlots
	}
	// the windows' end is the history's: the last client record ends an
	// unhealed window as it does in Compute
	fws := checker.FaultWindows(append(nem, history.Op{Index: -1, Process: 0, Time: end}))
	byIndex := map[int64]int{} // nemesis record index -> position in nem
	for i, o := range nem {
		byIndex[o.Index] = i
	}
	for _, fw := range fws {
		rep.Windows = append(rep.Windows, windowOf(nem, byIndex, fw, in))
	}
	if judged && len(rep.Windows) > 0 {
		m := newMatcher(rep.Windows)
		tr := newTracker(end, m.add)
		if err := EachRecord(path, tr.add); err != nil {
			return nil, fmt.Errorf("coverage: %s: %w", path, err)
		}
		tr.finish()
		m.set(rep.Windows)
	}
	if rep.Windows == nil {
		rep.Windows = []Window{}
	}
	rep.Kinds = counts(rep, in.Planned)
	return rep, nil
}

// windowOf is window of a history of which only the nemesis records nem
// are at hand (byIndex maps their Index to their position).
func windowOf(nem history.History, byIndex map[int64]int, fw checker.Window, in Input) Window {
	// window reads the start record (position 0 here) and the nemesis
	// records after it
	w := window(nem[byIndex[fw.StartOp]:], checker.Window{Fault: fw.Fault, Detail: fw.Detail, StartOp: 0}, in)
	w.Kind, w.Detail, w.Start, w.End = fw.Fault, fw.Detail, fw.Start, fw.End
	w.StartOp, w.StopOp, w.Unhealed = fw.StartOp, fw.StopOp, fw.Unhealed
	return w
}

// tracker follows, record by record, each process's lease (holders) and
// operation in flight (history.Pairs), and hands every state interval to
// emit as it closes.
type tracker struct {
	end     int64 // the history's last time
	emit    func(s state, iv interval)
	leases  map[int]*openLease
	pending map[int]history.Op // process -> its invoke in flight
}

// openLease is a lease being held.
type openLease struct {
	interval
	token    string
	validity int64
}

func newTracker(end int64, emit func(s state, iv interval)) *tracker {
	return &tracker{end: end, emit: emit, leases: map[int]*openLease{}, pending: map[int]history.Op{}}
}

// add follows one record: holders' and Pairs' rules, record by record.
func (t *tracker) add(o *history.Op) {
	if o.IsNemesis() {
		return
	}
	if o.Client != "" {
		switch {
		case o.F == history.FAcquire && o.Type == history.OK:
			t.closeLease(o.Process, o.Time)
			t.leases[o.Process] = &openLease{interval: interval{client: o.Client, start: o.Time, op: o.Index,
				nodes: slices.Clone(o.Nodes)}, token: o.Token, validity: o.Validity}
		case o.F == history.FExtend && o.Type == history.OK:
			if l := t.leases[o.Process]; l != nil && o.Validity > 0 {
				l.validity = o.Validity
			}
		case o.F == history.FRelease && o.Type == history.Invoke:
			t.closeLease(o.Process, o.Time)
		case o.F == history.FLost:
			if l := t.leases[o.Process]; l != nil && (o.Token == "" || l.token == "" || o.Token == l.token) {
				t.closeLease(o.Process, o.Time)
			}
		}
	}
	if o.F == history.FLost {
		return
	}
	if o.Type == history.Invoke {
		if prev, ok := t.pending[o.Process]; ok {
			t.closePair(prev, t.end) // never completed: Pairs leaves it open
		}
		t.pending[o.Process] = *o
		return
	}
	if inv, ok := t.pending[o.Process]; ok {
		delete(t.pending, o.Process)
		t.closePair(inv, o.Time)
	}
}

// closeLease ends process p's lease at t (or its validity, when earlier).
func (t *tracker) closeLease(p int, at int64) {
	l := t.leases[p]
	if l == nil {
		return
	}
	delete(t.leases, p)
	e := at
	if l.validity > 0 && l.validity < e {
		e = l.validity
	}
	if e >= l.start {
		l.end = e
		t.emit(stateHolder, l.interval)
	}
}

// closePair ends the operation invoked by inv at stop.
func (t *tracker) closePair(inv history.Op, stop int64) {
	if inv.Client == "" {
		return
	}
	iv := interval{client: inv.Client, start: inv.Time, end: stop, op: inv.Index}
	switch {
	case inv.F == history.FAcquire:
		t.emit(stateWaiter, iv)
	case slices.Contains(resourceOps, inv.F):
		t.emit(stateWrite, iv)
	}
}

// finish closes what is still open at the end of the history.
func (t *tracker) finish() {
	for p := range t.leases {
		t.closeLease(p, t.end)
	}
	for p, inv := range t.pending {
		delete(t.pending, p)
		t.closePair(inv, t.end)
	}
}

// matcher keeps, per window and state, the evidence touch would pick
// from the whole list of intervals: the interval with the lowest op
// among those containing the window's start, else among those
// intersecting the window.
type matcher struct {
	ws     []Window
	order  []int   // healed windows by start
	starts []int64 // their starts
	span   int64   // the longest healed window
	long   []int   // unhealed windows: checked against every interval
	best   [][nStates][2]*Touch
}

func newMatcher(ws []Window) *matcher {
	m := &matcher{ws: ws, best: make([][nStates][2]*Touch, len(ws))}
	for i, w := range ws {
		if w.Unhealed {
			m.long = append(m.long, i)
			continue
		}
		m.order = append(m.order, i)
		m.span = max(m.span, w.End-w.Start)
	}
	sort.SliceStable(m.order, func(a, b int) bool { return ws[m.order[a]].Start < ws[m.order[b]].Start })
	for _, i := range m.order {
		m.starts = append(m.starts, ws[i].Start)
	}
	return m
}

// add matches one closed interval against the windows it may overlap:
// the healed ones starting in [iv.start-span, iv.end], and the unhealed.
func (m *matcher) add(s state, iv interval) {
	lo := sort.Search(len(m.starts), func(k int) bool { return m.starts[k] >= iv.start-m.span })
	for k := lo; k < len(m.starts) && m.starts[k] <= iv.end; k++ {
		m.match(m.order[k], s, iv)
	}
	for _, i := range m.long {
		m.match(i, s, iv)
	}
}

// match applies touch's rules to interval iv and window i.
func (m *matcher) match(i int, s state, iv interval) {
	w := &m.ws[i]
	if !slices.Contains(w.Clients, iv.client) || iv.start > w.End || iv.end < w.Start {
		return
	}
	if s == stateHolder && w.NodesOnly && !involves(iv.nodes, w.Nodes) {
		return
	}
	k, when := 1, During
	if iv.start <= w.Start {
		k, when = 0, AtStart
	}
	if b := m.best[i][s][k]; b == nil || iv.op < b.Op {
		m.best[i][s][k] = &Touch{When: when, Client: iv.client, Op: iv.op}
	}
}

// set fills the windows' Holder, Waiter and Write.
func (m *matcher) set(ws []Window) {
	pick := func(b [2]*Touch) *Touch {
		if b[0] != nil {
			return b[0]
		}
		return b[1]
	}
	for i := range ws {
		ws[i].Holder = pick(m.best[i][stateHolder])
		ws[i].Waiter = pick(m.best[i][stateWaiter])
		ws[i].Write = pick(m.best[i][stateWrite])
	}
}
