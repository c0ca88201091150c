// Package coverage says what a run's faults touched: for each fault
// window, the clients or nodes it hit and whether a hit client held a
// lease, waited to acquire, or had a write in flight at the fault's start
// or during it; per kind, how many faults were planned, applied and
// touched a holder, a waiter or a write. A green verdict is only worth
// what its faults exercised (see Report.Shortfall).
package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
	// Op is the record that shows it: the record that started the lease
	// for a holder (its acquire's ok, or the extend ok that renewed an
	// acquire with unknown outcome), the acquire's invoke for a waiter,
	// the write's invoke for a write.
	Op int64 `json:"op"`
}

// When values of a Touch.
const (
	AtStart = "start"
	During  = "during"
)

// Unjudged reason for a history without client slots.
const noSlots = "the history's client records carry no client slot (written before lockstorm recorded them), so what the faults touched cannot be judged"

// Compute works out the coverage of src's fault windows, reading it
// once: each client's lease and operation in flight are followed record
// by record, and every state interval is matched, as it closes, against
// the fault windows started so far. Memory is bounded by the windows,
// the nemesis records, the processes and the operations never
// completed, not by the history.
//
// A history in which a fault's start is recorded after a state interval
// that ends at or after that start is read a second time, with every
// window known beforehand, so that the report is always the one the
// whole history gives. lockstorm's recorder never writes such a history:
// it stamps each record no later than the moment it records it.
func Compute(src history.Source, in Input) (*Report, error) {
	rep, _, err := compute(src, in)
	return rep, err
}

// compute is Compute, also saying how many times it read src.
func compute(src history.Source, in Input) (*Report, int, error) {
	p := NewPass(in)
	if err := p.p.read(src); err != nil {
		return nil, 1, fmt.Errorf("coverage: %w", err)
	}
	rep, err := p.Report(src)
	return rep, p.passes, err
}

// Pass is Compute fed by another reader of the history: Add takes each
// record in the history's order (the check's engine reads the history and
// hands every record on, so the coverage costs no read of its own), and
// Report ends it, reading src again only when the first read could not be
// exact (see Compute).
type Pass struct {
	p  *pass
	in Input
	n  int64 // records added
	// passes is how many times Report read the history (the first read
	// being Add's).
	passes int
}

// NewPass starts the coverage of a history.
func NewPass(in Input) *Pass { return &Pass{p: newPass(in, nil), in: in} }

// Add takes the next record of the history.
func (c *Pass) Add(o *history.Op) {
	c.p.add(o, c.n)
	c.n++
}

// Records is how many records Add took.
func (c *Pass) Records() int64 { return c.n }

// Report ends the pass and gives the coverage of the records added; src
// is the same history, read again if needed.
func (c *Pass) Report(src history.Source) (*Report, error) {
	p, in := c.p, c.in
	p.finish()
	rep := &Report{Requested: slices.Clone(in.Requested), Windows: p.windows()}
	if rep.Requested == nil {
		rep.Requested = []string{}
	}
	c.passes = 1
	judged := p.clientRecs == 0 || p.slotted > 0
	if !judged {
		rep.Unjudged = noSlots
	}
	if judged && len(rep.Windows) > 0 {
		if !p.exact(rep.Windows) {
			c.passes = 2
			p = newPass(in, rep.Windows)
			if err := p.read(src); err != nil {
				return nil, fmt.Errorf("coverage: %w", err)
			}
			p.finish()
		}
		p.m.setTouches(rep.Windows)
	}
	rep.Kinds = counts(rep, in.Planned)
	return rep, nil
}

// window is the report's window of fw, without what it touched: nem are
// the history's nemesis start and stop records, nem[k] fw's start
// record.
func window(fw checker.Window, nem history.History, k int, in Input) Window {
	w := Window{Kind: fw.Fault, Detail: fw.Detail, Start: fw.Start, End: fw.End,
		StartOp: fw.StartOp, StopOp: fw.StopOp, Unhealed: fw.Unhealed}
	first := &nem[k]
	w.Applied = first.Type == history.OK
	if first.Type == history.Invoke {
		w.Applied = false
		// the start's completion: the next nemesis start record of its fault
		for _, o := range nem[k+1:] {
			if o.F == history.FStart && o.Fault == fw.Fault && o.Type != history.Invoke {
				w.Applied = o.Type == history.OK
				break
			}
		}
	}
	w.Clients, w.Nodes, w.NodesOnly = targets(first, in)
	return w
}

// targets are the clients and nodes a fault whose start record is first
// hits: the ones it names, or every client for a fault naming no client
// (nodesOnly), and every node for one naming neither (a failover).
func targets(first *history.Op, in Input) (clients, nodes []string, nodesOnly bool) {
	clients, nodes = slices.Clone(first.Clients), slices.Clone(first.Nodes)
	if len(clients) > 0 {
		return clients, nodes, false
	}
	if len(nodes) == 0 {
		nodes = slices.Clone(in.Nodes)
	}
	return slices.Clone(in.Clients), nodes, true
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
	for _, k := range slices.Sorted(maps.Keys(planned)) {
		add(k)
	}
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

// Column is one column of the coverage table (the report's and the run
// summary's): its heading and what it counts.
type Column struct{ Name, Meaning string }

// Columns are the coverage table's columns, in the order the report and
// the summary show them, each with its meaning: the legend of the report
// page and of --help.
var Columns = []Column{
	{"planned", "fault steps of this kind in the plan"},
	{"applied", "of them, faults that took effect (their start completed ok)"},
	{"holder", "applied faults that hit a client holding the lock, at the fault's start or during it"},
	{"holder at start", "of those, faults whose client held the lock when the fault started"},
	{"waiter", "applied faults that hit a client waiting in acquire"},
	{"write", "applied faults that hit a client with a resource operation in flight (a write, cron run, api call or leader term)"},
	{"exercised", "applied faults that hit a holder or a waiter: what the bar (--min-coverage) counts"},
}

// Legend is Columns as text, one "name: meaning" line each, indented by
// indent.
func Legend(indent string) string {
	var b strings.Builder
	for _, c := range Columns {
		b.WriteString(indent + c.Name + ": " + c.Meaning + "\n")
	}
	return b.String()
}
