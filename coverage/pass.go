package coverage

import (
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// state is what a client can be doing that a fault may disturb.
type state int

const (
	stateHolder state = iota // holds a lease
	stateWaiter              // waits in acquire
	stateWrite               // has a resource operation in flight
	nStates
)

// interval is a closed time (ns) during which a client slot was in a
// state, opened by record op (as Touch.Op).
type interval struct {
	client     string
	start, end int64 // start: record op's time
	op         int64
	f          string   // record op's F
	nodes      []string // a lease's nodes; empty: every node
}

// resourceOps are the operations that count as a write in flight.
var resourceOps = []string{history.FWrite, history.FRun, history.FEnter, history.FLead}

// pass is one read of a history: it hands every state interval, as it
// closes, to the matcher, finding the windows as it reads (win) unless
// given them.
type pass struct {
	in                  Input
	end                 int64                     // the latest record time so far
	clientRecs, slotted int                       // client records, and those carrying a slot
	win                 checker.WindowPairer      // the fault windows, as their records arrive
	starts              []Window                  // each window as its start record says (by window index)
	awaiting            map[string][]int          // fault -> windows whose start invoke awaits its completion
	holders             map[*lease.Lease]interval // leases held by a client slot, not yet ended
	ops                 history.Pairer            // the invokes in flight
	orphans             []invoke                  // invokes never completed: open to the end
	m                   *matcher
	find                bool  // finding the windows (not given them)
	closedEnd           int64 // the latest end of an interval matched so far
	early               bool  // a window started at or before closedEnd (see exact)
}

// invoke is what a state interval needs of an invoke record.
type invoke struct {
	client, f string
	time, op  int64
}

// newPass returns a pass given the windows ws, or finding them (ws nil).
func newPass(in Input, ws []Window) *pass {
	p := &pass{in: in, holders: map[*lease.Lease]interval{},
		awaiting: map[string][]int{}, closedEnd: -1 << 63, find: ws == nil}
	p.m = newMatcher(ws)
	return p
}

// read reads src once and finishes.
func (p *pass) read(src history.Source) error {
	opt := p.in.Leases
	opt.Forget = true
	t, i := lease.NewTracker(opt), int64(0)
	err := history.Each(src, func(o *history.Op) bool {
		p.add(o, i, t.Add(o))
		i++
		return true
	})
	p.finish(t.Finish())
	return err
}

// add follows record o, the i-th of the history, and evs, what it did to
// the leases (a lease.Tracker's events under Input.Leases, Forget).
func (p *pass) add(o *history.Op, i int64, evs []lease.Event) {
	p.end = max(p.end, o.Time)
	op, paired := p.ops.Add(o) // fed every record: an invoke's InvokeAt is its i
	if o.IsNemesis() {
		if o.F == history.FStart || o.F == history.FStop {
			n := *o
			n.Index = i
			p.nemesis(&n)
		}
		return
	}
	p.clientRecs++
	if o.Client != "" {
		p.slotted++
	}
	p.follow(evs, o, i)
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

// nemesis takes nemesis start or stop record o (Index its position):
// the window it opens or stops, and whether a start took effect (its own
// type, or for an invoke the type of its fault's next start completion).
func (p *pass) nemesis(o *history.Op) {
	if o.F == history.FStart && o.Type != history.Invoke {
		for _, wi := range p.awaiting[o.Fault] {
			p.starts[wi].Applied = o.Type == history.OK
		}
		delete(p.awaiting, o.Fault)
	}
	switch wi, ev := p.win.Add(o); ev {
	case checker.WindowOpened:
		w := Window{Kind: o.Fault, Start: o.Time, StartOp: o.Index, StopOp: -1, Applied: o.Type == history.OK}
		w.Clients, w.Nodes, w.NodesOnly = targets(o, p.in)
		p.starts = append(p.starts, w)
		if o.Type == history.Invoke {
			p.awaiting[o.Fault] = append(p.awaiting[o.Fault], wi)
		}
		if p.find {
			p.m.start(w)
			p.early = p.early || o.Time <= p.closedEnd
		}
	case checker.WindowStopped:
		if p.find {
			p.m.stop(wi, o.Time)
		}
	}
}

// invokeOf is what a state interval needs of op's invoke.
func invokeOf(op history.Operation) invoke {
	return invoke{client: op.Invoke.Client, f: op.Invoke.F, time: op.Invoke.Time, op: op.InvokeAt}
}

// follow takes the lease events of record o, the i-th (nil at the end):
// a lease with a client slot is a holder's interval from its start to its
// end (a gone process's at the history's end), cut at its validity.
func (p *pass) follow(evs []lease.Event, o *history.Op, i int64) {
	for _, e := range evs {
		switch {
		case e.Kind == lease.Started && o.Client != "":
			p.holders[e.Lease] = interval{client: o.Client, start: e.At, op: i, f: o.F, nodes: o.Nodes} // a record's Nodes are never changed in place
		case e.Kind == lease.Ended:
			iv, ok := p.holders[e.Lease]
			delete(p.holders, e.Lease)
			end := e.At
			if e.Lease.CutBy == "" {
				end = p.end
			}
			if v := e.Lease.Validity(); v > 0 {
				end = min(end, v)
			}
			if iv.end = end; ok && end >= iv.start {
				p.closed(stateHolder, iv)
			}
		}
	}
}

// closeOp ends the operation invoked by inv at t.
func (p *pass) closeOp(inv invoke, t int64) {
	if inv.client == "" {
		return
	}
	iv := interval{client: inv.client, start: inv.time, end: t, op: inv.op, f: inv.f}
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

// finish closes what is still open at the end of the history; final
// are the events that end the leases still held.
func (p *pass) finish(final []lease.Event) {
	if p.find {
		for wi, w := range p.windows() {
			if !p.m.final[wi] {
				p.m.settle(wi, w.End)
			}
		}
	}
	p.follow(final, nil, -1)
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
	fws, _ := p.win.Finish(p.end) // the unhealed windows end at the last record
	out := make([]Window, len(fws))
	for i, fw := range fws {
		out[i] = p.starts[i]
		out[i].Detail, out[i].End, out[i].StopOp, out[i].Unhealed = fw.Detail, fw.End, fw.StopOp, fw.Unhealed
	}
	return out
}

// exact reports whether a finding pass matched every interval against
// every window it may touch: none started early, and it found ws.
func (p *pass) exact(ws []Window) bool {
	if !p.find {
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
