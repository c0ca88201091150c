// Package coverage says what a run's faults touched: for each fault
// window, whether a client it hit held a lease, waited to acquire or had
// a write in flight, at its start or during it; and counts per kind.
package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Input is what the history alone does not say about a run.
type Input struct {
	Planned   map[string]int // the plan's steps by kind
	Requested []string       // the --nemesis kinds, or the scripted plan's
	// Clients and Nodes are every client slot and node of the run: what a
	// fault naming none hits (every node only when it names no client).
	Clients []string
	Nodes   []string
	// Leases are the lease model's options (the lock checker's drift): a
	// holder's interval ends at the validity its holder believed.
	Leases lease.Options
}

// Report is a run's fault coverage ("coverage" in results.json).
type Report struct {
	Requested []string `json:"requested"`
	// Min is the bar Judge applied: windows of each requested kind that
	// must touch a holder or waiter (0 or less: no bar).
	Min int `json:"min"`
	// Unjudged says why exercise cannot be judged: client records
	// without their slot.
	Unjudged string `json:"unjudged,omitempty"`
	// Kinds are the per-kind counts, requested kinds first.
	Kinds   []KindCount `json:"kinds"`
	Windows []Window    `json:"windows"`             // in order of start
	Gaps    []string    `json:"shortfall,omitempty"` // Judge's shortfall lines
}

// KindCount is the coverage of one fault kind; its touched counts are of
// applied windows only. Columns says what each counts.
type KindCount struct {
	Kind          string `json:"kind"`
	Planned       int    `json:"planned"`
	Applied       int    `json:"applied"` // windows whose start completed ok
	TouchedHolder int    `json:"touched_holder"`
	HolderAtStart int    `json:"holder_at_start"`
	TouchedWaiter int    `json:"touched_waiter"`
	TouchedWrite  int    `json:"touched_write"`
	Exercised     int    `json:"exercised"` // touched a holder or a waiter
}

// Window is one fault window and what it touched.
type Window struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	// Start and End (ns since the run started) run from the start
	// action's first record to the stop's last (the history's end when
	// unhealed); StartOp and StopOp are those records (-1: never stopped).
	Start    int64 `json:"start_ns"`
	End      int64 `json:"end_ns"`
	StartOp  int64 `json:"start_op"`
	StopOp   int64 `json:"stop_op"`
	Unhealed bool  `json:"unhealed,omitempty"`
	Applied  bool  `json:"applied"` // the start completed ok
	// Clients and Nodes are what the fault hit (see targets). NodesOnly:
	// it named no client, so a holder counts only when its lease
	// involves one of Nodes.
	Clients   []string `json:"clients,omitempty"`
	Nodes     []string `json:"nodes,omitempty"`
	NodesOnly bool     `json:"nodes_only,omitempty"`
	// Holder, Waiter and Write are the evidence that a hit client was in
	// that state, nil when none was.
	Holder *Touch `json:"holder,omitempty"`
	Waiter *Touch `json:"waiter,omitempty"`
	Write  *Touch `json:"write,omitempty"`
}

// Touch is the evidence that a window touched a client in some state.
type Touch struct {
	When   string `json:"when"` // AtStart or During
	Client string `json:"client"`
	// Op is the record that shows it: the one that started the lease, or
	// the acquire's or write's invoke.
	Op int64 `json:"op"`
	// F and Type are record Op's; Time is its time, ns (the report's
	// text of it, not stored).
	F    string       `json:"-"`
	Type history.Type `json:"-"`
	Time int64        `json:"-"`
}

// When values of a Touch: in the state at the fault's start, or entering
// it during the fault.
const (
	AtStart = "start"
	During  = "during"
)

const noSlots = "the history's client records carry no client slot (written before lockstorm recorded them), so what the faults touched cannot be judged"

// Compute works out the coverage of src's fault windows in one read,
// matching each state interval as it closes against the windows started
// so far (memory: the windows and what is open, not the history). A
// history with a fault start recorded after an interval that ends at or
// after it (lockstorm's recorder writes none) is read a second time.
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
	rep, err := p.report(src)
	return rep, p.passes, err
}

// Pass is Compute fed by another reader of the history (the check's),
// who also follows its leases with a lease.Tracker under Input.Leases
// and Forget: Add takes each record in order with the events it caused,
// Report ends it.
type Pass struct {
	p      *pass
	in     Input
	n      int64 // records added
	passes int   // reads of the history, Add's included
}

// NewPass starts the coverage of a history.
func NewPass(in Input) *Pass { return &Pass{p: newPass(in, nil), in: in} }

// Add takes the next record of the history and the lease events it
// caused.
func (c *Pass) Add(o *history.Op, leases []lease.Event) {
	c.p.add(o, c.n, leases)
	c.n++
}

// Records is how many records Add took.
func (c *Pass) Records() int64 { return c.n }

// Report ends the pass: final are the lease events that end the leases
// still held (the Tracker's Finish); src is the same history, read again
// if needed.
func (c *Pass) Report(src history.Source, final []lease.Event) (*Report, error) {
	c.p.finish(final)
	return c.report(src)
}

// report is the report of the finished pass.
func (c *Pass) report(src history.Source) (*Report, error) {
	p, in := c.p, c.in
	rep := &Report{Requested: append([]string{}, in.Requested...), Windows: p.windows()}
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
		}
		p.m.setTouches(rep.Windows)
	}
	rep.Kinds = counts(rep, in.Planned)
	return rep, nil
}

// targets are the clients and nodes the fault started by first hits:
// those named, else every client (nodesOnly) and, naming neither, every
// node.
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
	all := slices.Clone(rep.Requested) // requested, then seen, then planned
	for _, w := range rep.Windows {
		all = append(all, w.Kind)
	}
	var order []string
	for _, k := range append(all, slices.Sorted(maps.Keys(planned))...) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
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
	if i := slices.IndexFunc(r.Kinds, func(c KindCount) bool { return c.Kind == k }); i >= 0 {
		return r.Kinds[i]
	}
	return KindCount{Kind: k}
}

// Column is one column of the coverage table: heading and meaning.
type Column struct{ Name, Meaning string }

// Columns are the coverage table's columns in order, the legend of the
// report and --help.
var Columns = []Column{
	{"planned", "fault steps of this kind in the plan"},
	{"applied", "of them, faults that took effect (their start completed ok)"},
	{"holder", "applied faults that hit a client holding the lock, at the fault's start or during it"},
	{"holder at start", "of those, faults whose client held the lock when the fault started"},
	{"waiter", "applied faults that hit a client waiting in acquire"},
	{"write", "applied faults that hit a client with a resource operation in flight (a write, cron run, api call or leader term)"},
	{"exercised", "applied faults that hit a holder or a waiter: what the bar (--min-coverage) counts"},
}

// Legend is Columns as "name: meaning" lines, indented.
func Legend(indent string) string {
	var b strings.Builder
	for _, c := range Columns {
		b.WriteString(indent + c.Name + ": " + c.Meaning + "\n")
	}
	return b.String()
}
