// Package coverage says what a run's faults touched: for each fault
// window, the clients or nodes it hit and whether a hit client held a
// lease, waited to acquire, or had a write in flight at the fault's start
// or during it; per kind, how many faults were planned, applied and
// touched a holder, a waiter or a write. A green verdict is only worth
// what its faults exercised (see Report.Shortfall).
package coverage

import (
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// Input is what the history alone does not say about a run.
type Input struct {
	// Planned counts the plan's faults by kind (the plan's steps).
	Planned map[string]int
	// Requested lists the fault kinds the user asked for: the --nemesis
	// kinds, or for a scripted plan the kinds its steps use.
	Requested []string
	// Clients are every client slot of the run ("c1", ...): the clients a
	// fault that names none hits.
	Clients []string
	// Nodes are every node of the run ("n1", ...): the nodes a fault that
	// names neither nodes nor clients (a failover) hits.
	Nodes []string
}

// Report is a run's fault coverage, stored under "coverage" in
// results.json.
type Report struct {
	// Requested are the fault kinds asked for (Input.Requested).
	Requested []string `json:"requested"`
	// Min is the bar applied (see Judge): at least Min windows of each
	// requested kind must touch a holder or a waiter; 0 or less is no bar.
	Min int `json:"min"`
	// Unjudged says why exercise cannot be judged ("" when it can): a
	// history written before client records carried their slot.
	Unjudged string `json:"unjudged,omitempty"`
	// Kinds are the per-kind counts, requested kinds first, then the
	// others in order of first appearance.
	Kinds []KindCount `json:"kinds"`
	// Windows are the fault windows in order of start.
	Windows []Window `json:"windows"`
	// Gaps are the shortfall lines for Min (set by Judge); empty when the
	// faults cleared the bar.
	Gaps []string `json:"shortfall,omitempty"`
}

// KindCount is the coverage of one fault kind. Touched counts are over
// applied windows only: a fault whose start did not complete ok proves
// nothing.
type KindCount struct {
	Kind string `json:"kind"`
	// Planned is the number of the plan's steps of this kind.
	Planned int `json:"planned"`
	// Applied is the number of windows whose start completed ok.
	Applied int `json:"applied"`
	// TouchedHolder counts applied windows that hit a lease holder (at the
	// start or during the window); HolderAtStart those where it held at
	// the fault's start.
	TouchedHolder int `json:"touched_holder"`
	HolderAtStart int `json:"holder_at_start"`
	// TouchedWaiter counts applied windows that hit a client waiting in
	// acquire.
	TouchedWaiter int `json:"touched_waiter"`
	// TouchedWrite counts applied windows that hit a client with a
	// resource operation in flight.
	TouchedWrite int `json:"touched_write"`
	// Exercised counts applied windows that touched a holder or a waiter.
	Exercised int `json:"exercised"`
}

// Window is one fault window and what it touched.
type Window struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	// Start and End are nanoseconds since the run started: from the first
	// record of the start action to the last record of the stop (the end
	// of the history when unhealed).
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	// StartOp and StopOp are the record indices of the start action's
	// first record and the stop action's last record (-1: never stopped).
	StartOp  int64 `json:"start_op"`
	StopOp   int64 `json:"stop_op"`
	Unhealed bool  `json:"unhealed,omitempty"`
	// Applied is true when the start completed ok (not info).
	Applied bool `json:"applied"`
	// Clients are the clients the fault hit: the ones it named, or every
	// client for a fault on nodes only.
	Clients []string `json:"clients,omitempty"`
	// Nodes are the nodes it named (every node for a fault naming neither
	// nodes nor clients, such as a failover).
	Nodes []string `json:"nodes,omitempty"`
	// NodesOnly is true for a fault that names no client: a holder counts
	// as touched only when its lease involves one of Nodes.
	NodesOnly bool `json:"nodes_only,omitempty"`
	// Holder, Waiter and Write say whether a hit client was in that state,
	// nil when none was.
	Holder *Touch `json:"holder,omitempty"`
	Waiter *Touch `json:"waiter,omitempty"`
	Write  *Touch `json:"write,omitempty"`
}

// Touch is the evidence that a window touched a client in some state.
type Touch struct {
	// When is "start" (the client was in the state when the fault started)
	// or "during" (it entered the state while the fault was active).
	When string `json:"when"`
	// Client is the slot that was in the state.
	Client string `json:"client"`
	// Op is the record that shows it: the acquire's ok for a holder, the
	// acquire's invoke for a waiter, the write's invoke for a write.
	Op int64 `json:"op"`
}

// When values of a Touch.
const (
	AtStart = "start"
	During  = "during"
)

// Unjudged reason for a history without client slots.
const noSlots = "the history's client records carry no client slot (written before lockstorm recorded them), so what the faults touched cannot be judged"

// Compute works out the coverage of h's fault windows.
func Compute(h history.History, in Input) *Report {
	rep := &Report{Requested: slices.Clone(in.Requested)}
	if rep.Requested == nil {
		rep.Requested = []string{}
	}
	ivs, judged := intervals(h)
	if !judged {
		rep.Unjudged = noSlots
	}
	for _, fw := range checker.FaultWindows(h) {
		w := window(h, fw, in)
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

// window builds the window's static part: times, targets, applied.
func window(h history.History, fw checker.Window, in Input) Window {
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

// counts tallies the windows per kind.
func counts(rep *Report, planned map[string]int) []KindCount {
	var order []string
	add := func(k string) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, k := range rep.Requested {
		add(k)
	}
	for _, w := range rep.Windows {
		add(w.Kind)
	}
	var rest []string
	for k := range planned {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	order = append(order, rest...)
	out := make([]KindCount, len(order))
	for i, k := range order {
		c := KindCount{Kind: k, Planned: planned[k]}
		for _, w := range rep.Windows {
			if w.Kind != k || !w.Applied {
				continue
			}
			c.Applied++
			if w.Holder != nil {
				c.TouchedHolder++
				if w.Holder.When == AtStart {
					c.HolderAtStart++
				}
			}
			if w.Waiter != nil {
				c.TouchedWaiter++
			}
			if w.Write != nil {
				c.TouchedWrite++
			}
			if w.Holder != nil || w.Waiter != nil {
				c.Exercised++
			}
		}
		out[i] = c
	}
	return out
}

// Kind returns the counts of kind k (zero counts when absent).
func (r *Report) Kind(k string) KindCount {
	for _, c := range r.Kinds {
		if c.Kind == k {
			return c
		}
	}
	return KindCount{Kind: k}
}
