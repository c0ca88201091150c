package coverage

import (
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// computeWhole, the pass's oracle, lists every state interval of the
// whole history h, then matches each window against the lists.
func computeWhole(h history.History, in Input) *Report {
	rep := &Report{Requested: slices.Clone(in.Requested)}
	if rep.Requested == nil {
		rep.Requested = []string{}
	}
	ivs, judged := intervals(h, in.Leases)
	if !judged {
		rep.Unjudged = noSlots
	}
	for _, fw := range checker.FaultWindows(h) {
		w := windowWhole(h, fw, in)
		if judged {
			w.Holder = touch(ivs[stateHolder], w, true)
			w.Waiter = touch(ivs[stateWaiter], w, false)
			w.Write = touch(ivs[stateWrite], w, false)
		}
		rep.Windows = append(rep.Windows, w)
	}
	if rep.Windows == nil {
		rep.Windows = []Window{}
	}
	rep.Kinds = counts(rep, in.Planned)
	return rep
}

// windowWhole builds the window's static part: times, targets, applied.
func windowWhole(h history.History, fw checker.Window, in Input) Window {
	w := Window{Kind: fw.Fault, Detail: fw.Detail, Start: fw.Start, End: fw.End,
		StartOp: fw.StartOp, StopOp: fw.StopOp, Unhealed: fw.Unhealed}
	first := h[fw.StartOp]
	w.Applied = first.Type == history.OK
	if first.Type == history.Invoke {
		w.Applied = false
		// the start's completion: the next nemesis record of the same action
		for i := fw.StartOp + 1; i < int64(len(h)); i++ {
			o := h[i]
			if o.IsNemesis() && o.F == history.FStart && o.Fault == fw.Fault && o.Type != history.Invoke {
				w.Applied = o.Type == history.OK
				break
			}
		}
	}
	w.Clients, w.Nodes = slices.Clone(first.Clients), slices.Clone(first.Nodes)
	if len(w.Clients) == 0 {
		w.NodesOnly = true
		w.Clients = slices.Clone(in.Clients)
		if len(w.Nodes) == 0 {
			w.Nodes = slices.Clone(in.Nodes)
		}
	}
	return w
}

// intervals lists, per state, the intervals of every client slot. judged
// is false for a history whose client records carry no slot.
func intervals(h history.History, opt lease.Options) (ivs [nStates][]interval, judged bool) {
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
	ivs[stateHolder] = holders(h, end, opt)
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

// holders lists the lease intervals of the whole history (checker.Leases,
// with opt's drift allowance): from a lease's start until it ended (its
// process gone: the end of the history), cut at its validity.
func holders(h history.History, end int64, opt lease.Options) []interval {
	var out []interval
	for _, l := range checker.Leases(h, opt.Drift, opt.DriftFactor) {
		o := &h[l.StartOp]
		if o.Client == "" {
			continue
		}
		e, by := l.HeldUntil()
		if by == lease.EndGone {
			e = end
		}
		if v := l.Validity(); v > 0 {
			e = min(e, v)
		}
		if e >= l.Start() {
			out = append(out, interval{client: o.Client, start: l.Start(), end: e, op: l.StartOp, nodes: slices.Clone(o.Nodes)})
		}
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
