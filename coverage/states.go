package coverage

import (
	"slices"

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
// client slot was in a state, and the record that opens it.
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

// intervals lists, per state, the intervals of every client slot. judged
// is false for a history whose client records carry no slot.
func intervals(h history.History) (ivs [nStates][]interval, judged bool) {
	var end int64
	clientRecs, slotted := 0, 0
	for _, o := range h {
		end = max(end, o.Time)
		if o.IsNemesis() {
			continue
		}
		clientRecs++
		if o.Client != "" {
			slotted++
		}
	}
	if clientRecs > 0 && slotted == 0 {
		return ivs, false
	}
	ivs[stateHolder] = holders(h, end)
	for _, p := range history.Pairs(h) {
		inv := h[p.Invoke]
		if inv.Client == "" {
			continue
		}
		stop := end
		if p.Completion >= 0 {
			stop = h[p.Completion].Time
		}
		iv := interval{client: inv.Client, start: inv.Time, end: stop, op: int64(p.Invoke)}
		switch {
		case inv.F == history.FAcquire:
			ivs[stateWaiter] = append(ivs[stateWaiter], iv)
		case slices.Contains(resourceOps, inv.F):
			ivs[stateWrite] = append(ivs[stateWrite], iv)
		}
	}
	return ivs, true
}

// holders lists the lease intervals: from an acquire's ok until the
// earliest of the process's release invoke, a lost notice of the lease,
// the lease's validity (the latest the acquire or an extend reported,
// when known) and the end of the history.
func holders(h history.History, end int64) []interval {
	type lease struct {
		interval
		token    string
		validity int64
	}
	var out []interval
	open := map[int]*lease{} // process -> lease held
	closeAt := func(p int, t int64) {
		l := open[p]
		if l == nil {
			return
		}
		delete(open, p)
		e := t
		if l.validity > 0 && l.validity < e {
			e = l.validity
		}
		if e >= l.start {
			l.end = e
			out = append(out, l.interval)
		}
	}
	for i, o := range h {
		if o.IsNemesis() || o.Client == "" {
			continue
		}
		switch {
		case o.F == history.FAcquire && o.Type == history.OK:
			closeAt(o.Process, o.Time)
			open[o.Process] = &lease{interval: interval{client: o.Client, start: o.Time, op: int64(i),
				nodes: slices.Clone(o.Nodes)}, token: o.Token, validity: o.Validity}
		case o.F == history.FExtend && o.Type == history.OK:
			if l := open[o.Process]; l != nil && o.Validity > 0 {
				l.validity = o.Validity
			}
		case o.F == history.FRelease && o.Type == history.Invoke:
			closeAt(o.Process, o.Time)
		case o.F == history.FLost:
			if l := open[o.Process]; l != nil && (o.Token == "" || l.token == "" || o.Token == l.token) {
				closeAt(o.Process, o.Time)
			}
		}
	}
	ps := make([]int, 0, len(open))
	for p := range open {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	for _, p := range ps {
		closeAt(p, end)
	}
	slices.SortFunc(out, func(a, b interval) int { return int(a.op - b.op) })
	return out
}

// touch finds the evidence that a hit client of w was in a state: the
// earliest interval containing the window's start, else the earliest that
// intersects the window. For a holder under a fault on nodes only, the
// lease must involve one of the fault's nodes.
func touch(ivs []interval, w Window, holder bool) *Touch {
	var during *Touch
	for _, iv := range ivs {
		if !slices.Contains(w.Clients, iv.client) || iv.start > w.End || iv.end < w.Start {
			continue
		}
		if holder && w.NodesOnly && !involves(iv.nodes, w.Nodes) {
			continue
		}
		if iv.start <= w.Start {
			return &Touch{When: AtStart, Client: iv.client, Op: iv.op}
		}
		if during == nil {
			during = &Touch{When: During, Client: iv.client, Op: iv.op}
		}
	}
	return during
}

// involves reports whether a lease on leaseNodes (empty: every node)
// involves one of faultNodes (empty: every node).
func involves(leaseNodes, faultNodes []string) bool {
	if len(leaseNodes) == 0 || len(faultNodes) == 0 {
		return true
	}
	for _, n := range leaseNodes {
		if slices.Contains(faultNodes, n) {
			return true
		}
	}
	return false
}
