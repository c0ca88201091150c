package coverage

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// state is what a client can be doing that a fault may disturb.
type state int

const (
	stateHolder state = iota // holds a lease
	stateWaiter              // waits in acquire
	stateWrite               // has a resource operation in flight
	nStates
)

// interval is a time (ns since the run started, closed) during which a
// client slot was in a state, and the record that opens it (op: the
// acquire's ok for a holder, the invoke for a waiter or a write).
type interval struct {
	client     string
	start, end int64
	op         int64
	// nodes are the nodes a lease involves (the acquire ok's Nodes); empty
	// means every node.
	nodes []string
}

// resourceOps are the operations on the protected resource that count as
// a write in flight: a write, a cron run, an api entry, a leader's
// heartbeat.
var resourceOps = []string{history.FWrite, history.FRun, history.FEnter, history.FLead}

// pass is one read of a history: it follows each process's lease and
// operation in flight and hands every state interval, as it closes, to
// the matcher. Live, it also finds the fault windows as their records
// are read (finder); else it is given them.
type pass struct {
	in                  Input
	end                 int64 // the latest record time so far
	clientRecs, slotted int   // client records, and those carrying a slot
	nem                 history.History
	leases              map[int]*openLease
	ops                 history.Pairer // the invokes in flight
	orphans             []invoke       // invokes never completed: open to the end
	m                   *matcher
	find                *finder // nil when the windows were given
	// closedEnd is the latest end of an interval matched so far; early is
	// set when a window started at or before it (see exact).
	closedEnd int64
	early     bool
}

// openLease is a lease being held: the interval so far, its token and
// its validity (the latest the acquire or an extend reported, 0 unknown).
type openLease struct {
	interval
	token    string
	validity int64
}

// invoke is what a state interval needs of an invoke record.
type invoke struct {
	client, f string
	time, op  int64
}

// newPass returns a pass over a history whose windows are ws (with their
// End), or, when ws is nil, whose windows it finds as it reads.
func newPass(in Input, ws []Window) *pass {
	p := &pass{in: in, leases: map[int]*openLease{}, closedEnd: -1 << 63}
	p.m = newMatcher(ws)
	if ws == nil {
		p.find = newFinder(p.m)
	}
	return p
}

// read reads src once (see finish for its end).
func (p *pass) read(src history.Source) error {
	var i int64
	return history.Each(src, func(o *history.Op) bool {
		p.add(o, i)
		i++
		return true
	})
}

// add follows record o, the i-th of the history.
func (p *pass) add(o *history.Op, i int64) {
	p.end = max(p.end, o.Time)
	op, paired := p.ops.Add(o) // fed every record: an invoke's InvokeAt is its i
	if o.IsNemesis() {
		if o.F == history.FStart || o.F == history.FStop {
			n := *o
			n.Index, n.Clients, n.Nodes = i, slices.Clone(o.Clients), slices.Clone(o.Nodes)
			p.nem = append(p.nem, n)
			if p.find != nil && p.find.add(&n, p.in) && n.Time <= p.closedEnd {
				p.early = true
			}
		}
		return
	}
	p.clientRecs++
	if o.Client != "" {
		p.slotted++
		p.lease(o, i)
	}
	switch {
	case !paired:
	case op.Completion == nil: // never completed: open to the end
		if inv := invokeOf(op); inv.client != "" {
			p.orphans = append(p.orphans, inv)
		}
	default:
		p.closeOp(invokeOf(op), o.Time)
	}
}

// invokeOf is what a state interval needs of op's invoke.
func invokeOf(op history.Operation) invoke {
	return invoke{client: op.Invoke.Client, f: op.Invoke.F, time: op.Invoke.Time, op: op.InvokeAt}
}

// lease follows the lease of o's process: held from an acquire's ok until
// the earliest of the process's release invoke, a lost notice of the
// lease, the lease's validity and the end of the history.
func (p *pass) lease(o *history.Op, i int64) {
	switch {
	case o.F == history.FAcquire && o.Type == history.OK:
		p.closeLease(o.Process, o.Time)
		p.leases[o.Process] = &openLease{interval: interval{client: o.Client, start: o.Time, op: i,
			nodes: slices.Clone(o.Nodes)}, token: o.Token, validity: o.Validity}
	case o.F == history.FExtend && o.Type == history.OK:
		if l := p.extended(o); l != nil && o.Validity > 0 {
			l.validity = o.Validity
		}
	case o.F == history.FRelease && o.Type == history.Invoke:
		p.closeLease(o.Process, o.Time)
	case o.F == history.FLost:
		if l := p.leases[o.Process]; l != nil && (o.Token == "" || l.token == "" || o.Token == l.token) {
			p.closeLease(o.Process, o.Time)
		}
	}
}

// extended is the lease an extend ok renewed: its own process's, or,
// for a watchdog's renewal recorded under a process of its own (an
// observed or watchdog extend), the open lease with the same token.
func (p *pass) extended(o *history.Op) *openLease {
	if l := p.leases[o.Process]; l != nil {
		return l
	}
	if o.Token == "" {
		return nil
	}
	for _, l := range p.leases {
		if l.token == o.Token {
			return l
		}
	}
	return nil
}

// closeLease ends process pr's lease at t (or its validity, when earlier).
func (p *pass) closeLease(pr int, t int64) {
	l := p.leases[pr]
	if l == nil {
		return
	}
	delete(p.leases, pr)
	if l.validity > 0 && l.validity < t {
		t = l.validity
	}
	if t >= l.start {
		l.end = t
		p.closed(stateHolder, l.interval)
	}
}

// closeOp ends the operation invoked by inv at t.
func (p *pass) closeOp(inv invoke, t int64) {
	if inv.client == "" {
		return
	}
	iv := interval{client: inv.client, start: inv.time, end: t, op: inv.op}
	switch {
	case inv.f == history.FAcquire:
		p.closed(stateWaiter, iv)
	case slices.Contains(resourceOps, inv.f):
		p.closed(stateWrite, iv)
	}
}

// closed matches a closed interval against the windows.
func (p *pass) closed(s state, iv interval) {
	p.closedEnd = max(p.closedEnd, iv.end)
	p.m.add(s, iv)
}

// finish closes what is still open at the end of the history: leases,
// operations never completed, windows never stopped.
func (p *pass) finish() {
	if p.find != nil {
		p.find.finish(p.end)
	}
	for pr := range p.leases {
		p.closeLease(pr, p.end)
	}
	for _, op := range p.ops.Flush() {
		p.closeOp(invokeOf(op), p.end)
	}
	for _, inv := range p.orphans {
		p.closeOp(inv, p.end)
	}
	p.orphans = nil
}

// windows are the history's fault windows (checker.FaultWindows), without
// what they touched.
func (p *pass) windows() []Window {
	// the sentinel's time is the history's end, for unhealed windows
	fws := checker.FaultWindows(append(slices.Clip(p.nem), history.Op{Index: -1, Time: p.end}))
	out := make([]Window, 0, len(fws))
	for _, fw := range fws {
		k, _ := slices.BinarySearchFunc(p.nem, fw.StartOp, func(o history.Op, i int64) int { return cmp.Compare(o.Index, i) })
		out = append(out, window(fw, p.nem, k, p.in))
	}
	return out
}

// exact reports whether a live pass matched every interval against every
// window that it may touch: no window started at or before the end of an
// interval closed before its start record, and the windows it found are
// ws.
func (p *pass) exact(ws []Window) bool {
	if p.find == nil {
		return true
	}
	if p.early || len(p.m.ws) != len(ws) {
		return false
	}
	for i, w := range ws {
		if f := p.m.ws[i]; f.StartOp != w.StartOp || f.Start != w.Start || f.End != w.End {
			return false
		}
	}
	return true
}
