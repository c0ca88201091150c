package coverage

import (
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// matcher keeps, per window and state, the evidence that a hit client
// was in the state: the interval of lowest op containing the window's
// start, else intersecting it. Intervals come as they close, in any order.
type matcher struct {
	ws    []Window // End is known once final
	final []bool
	ev    [][nStates]evidence
	// always are the windows not final or never stopped, matched against
	// every interval; byStart the others by Start, span the longest.
	always  []int
	byStart []int
	span    int64
}

// evidence is a window's evidence of one state so far: the lowest op
// containing its start, and the intervals begun during it not beaten by
// one of lower op begun no later (End decides among them).
type evidence struct {
	atStart *candidate
	during  []candidate
}

// candidate is an interval that may be a window's evidence.
type candidate struct {
	client    string
	start, op int64
	f         string
}

// newMatcher returns a matcher of the final windows ws (nil: none yet).
func newMatcher(ws []Window) *matcher {
	m := &matcher{ws: ws, final: make([]bool, len(ws)), ev: make([][nStates]evidence, len(ws))}
	for i, w := range ws {
		m.final[i] = true
		if w.Unhealed {
			m.always = append(m.always, i)
			continue
		}
		m.byStart = append(m.byStart, i)
		m.span = max(m.span, w.End-w.Start)
	}
	sort.SliceStable(m.byStart, func(a, b int) bool { return ws[m.byStart[a]].Start < ws[m.byStart[b]].Start })
	return m
}

// start adds window w, whose End is not known yet; it returns its index.
func (m *matcher) start(w Window) int {
	m.ws, m.final = append(m.ws, w), append(m.final, false)
	m.ev = append(m.ev, [nStates]evidence{})
	m.always = append(m.always, len(m.ws)-1)
	return len(m.ws) - 1
}

// stop makes window i's End final, during the read.
func (m *matcher) stop(i int, end int64) {
	m.settle(i, end)
	m.always = slices.DeleteFunc(m.always, func(j int) bool { return j == i })
	k := sort.Search(len(m.byStart), func(k int) bool { return m.ws[m.byStart[k]].Start > m.ws[i].Start })
	m.byStart = slices.Insert(m.byStart, k, i)
	m.span = max(m.span, end-m.ws[i].Start)
}

// settle makes window i's End final.
func (m *matcher) settle(i int, end int64) { m.ws[i].End, m.final[i] = end, true }

// add matches a closed interval against the windows it may touch.
func (m *matcher) add(s state, iv interval) {
	lo := sort.Search(len(m.byStart), func(k int) bool { return m.ws[m.byStart[k]].Start >= iv.start-m.span })
	for k := lo; k < len(m.byStart) && m.ws[m.byStart[k]].Start <= iv.end; k++ {
		m.match(m.byStart[k], s, iv)
	}
	for _, i := range m.always {
		m.match(i, s, iv)
	}
}

// match applies the rules of evidence to interval iv and window i.
func (m *matcher) match(i int, s state, iv interval) {
	w := &m.ws[i]
	if iv.end < w.Start || m.final[i] && iv.start > w.End || !slices.Contains(w.Clients, iv.client) {
		return
	}
	if s == stateHolder && w.NodesOnly && !involves(iv.nodes, w.Nodes) {
		return
	}
	e, c := &m.ev[i][s], candidate{client: iv.client, start: iv.start, op: iv.op, f: iv.f}
	if iv.start <= w.Start {
		if e.atStart == nil || c.op < e.atStart.op {
			e.atStart = &c
		}
		return
	}
	for _, d := range e.during {
		if d.op <= c.op && d.start <= c.start {
			return
		}
	}
	e.during = slices.DeleteFunc(e.during, func(d candidate) bool { return c.op <= d.op && c.start <= d.start })
	e.during = append(e.during, c)
}

// setTouches fills the Holder, Waiter and Write of ws, the final windows.
func (m *matcher) setTouches(ws []Window) {
	for i := range ws {
		ws[i].Holder = m.ev[i][stateHolder].touch(m.ws[i].End, history.OK)
		ws[i].Waiter = m.ev[i][stateWaiter].touch(m.ws[i].End, history.Invoke)
		ws[i].Write = m.ev[i][stateWrite].touch(m.ws[i].End, history.Invoke)
	}
}

// touch is the evidence of a window ending at end, its records of type
// typ; nil when none.
func (e *evidence) touch(end int64, typ history.Type) *Touch {
	best, when := e.atStart, AtStart
	for k, d := range e.during {
		if e.atStart == nil && d.start <= end && (best == nil || d.op < best.op) {
			best, when = &e.during[k], During
		}
	}
	if best == nil {
		return nil
	}
	return &Touch{When: when, Client: best.client, Op: best.op, F: best.f, Type: typ, Time: best.start}
}

// involves reports whether a lease on leaseNodes (empty: every node)
// involves one of faultNodes (empty: every node).
func involves(leaseNodes, faultNodes []string) bool {
	return len(leaseNodes) == 0 || len(faultNodes) == 0 ||
		slices.ContainsFunc(leaseNodes, func(n string) bool { return slices.Contains(faultNodes, n) })
}
