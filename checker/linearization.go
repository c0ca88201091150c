package checker

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// Linearization is a porcupine search kept for drawing porcupine's
// visualisation, with annotations for ops the check left out.
type Linearization struct {
	model porcupine.Model
	info  porcupine.LinearizationInfo
	notes []porcupine.Annotation
	valid Validity
	// From and To are the earliest call and latest return (or call) of its
	// operations (ns); First and Last the smallest and largest record
	// index of the segment searched.
	From, To, First, Last int64
	// Processes are the process of each row when the search renumbered
	// them 0, 1, ...; nil when the rows are the process ids.
	Processes []int
}

// Valid is the verdict of this search alone (not the run's).
func (z *Linearization) Valid() Validity { return z.valid }

// validityOf is porcupine's result as a verdict.
func validityOf(r porcupine.CheckResult) Validity {
	switch r {
	case porcupine.Ok:
		return Valid
	case porcupine.Illegal:
		return Invalid
	}
	return Unknown
}

// WriteHTML writes porcupine's visualisation of the search as an HTML
// page, with the fault windows within its time span on a "nemesis" row.
func (z *Linearization) WriteHTML(w io.Writer, faults []Window) error {
	info := z.info // AddAnnotations appends: keep z's own unchanged
	info.AddAnnotations(append(faultAnnotations(faults, z.From, z.To), z.notes...))
	return porcupine.Visualize(z.model, info, w)
}

// setRecords says which records the search is of (z may be nil).
func (z *Linearization) setRecords(first, last int64) {
	if z != nil {
		z.First, z.Last = first, last
	}
}

// keepMode is which porcupine searches a check keeps for drawing (at
// most VisualizeMaxOps operations each): none, one that fails (searched
// again verbosely, rows renumbered: a segment's), or any (the whole
// history's).
type keepMode int

const (
	keepNone keepMode = iota
	keepFailing
	keepWhole
)

// search runs porcupine on pops within timeout and keeps the search as
// keep says (notes annotating it), else returns nil.
func search(model porcupine.Model, pops []porcupine.Operation, timeout time.Duration, notes []porcupine.Annotation, keep keepMode) (porcupine.CheckResult, *Linearization) {
	if keep == keepWhole && len(pops) <= VisualizeMaxOps {
		r, info := porcupine.CheckOperationsVerbose(model, pops, timeout)
		return r, newLinearization(model, info, notes, r, pops, nil)
	}
	r := porcupine.CheckOperationsTimeout(model, pops, timeout)
	if keep != keepFailing || r != porcupine.Illegal || len(pops) > VisualizeMaxOps {
		return r, nil
	}
	rows, notes, procs := renumbered(pops, notes)
	again, info := porcupine.CheckOperationsVerbose(model, rows, timeout)
	return r, newLinearization(model, info, notes, again, rows, procs)
}

// newLinearization is the search of pops that gave r and info.
func newLinearization(model porcupine.Model, info porcupine.LinearizationInfo, notes []porcupine.Annotation, r porcupine.CheckResult, pops []porcupine.Operation, procs []int) *Linearization {
	z := &Linearization{model: model, info: info, notes: notes, valid: validityOf(r), Processes: procs, From: Inf}
	for _, o := range pops {
		z.From, z.To = min(z.From, o.Call), max(z.To, o.Call)
		if o.Return < Inf {
			z.To = max(z.To, o.Return)
		}
	}
	return z
}

// renumbered are pops and notes with their processes renumbered 0, 1,
// ... in process order, and the process of each new number.
func renumbered(pops []porcupine.Operation, notes []porcupine.Annotation) ([]porcupine.Operation, []porcupine.Annotation, []int) {
	row := map[int]int{}
	for _, o := range pops {
		row[o.ClientId] = 0
	}
	for _, n := range notes {
		row[n.ClientId] = 0
	}
	procs := slices.Sorted(maps.Keys(row))
	for i, p := range procs {
		row[p] = i
	}
	out := slices.Clone(pops)
	for i := range out {
		out[i].ClientId = row[out[i].ClientId]
	}
	ns := slices.Clone(notes)
	for i := range ns {
		ns[i].ClientId = row[ns[i].ClientId]
	}
	return out, ns, procs
}

// unplaced re-checks one key's ops verbosely. If not linearizable it
// steps the model through the longest partial linearization, calling visit
// with each input, and returns the state reached and, of the ops outside
// it, the one that returned first (ties: invoked first).
// opOrder orders ops by (Call, Return).
func opOrder(a, b porcupine.Operation) int {
	return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Return, b.Return))
}

func unplaced(model porcupine.Model, part []porcupine.Operation, timeout time.Duration, visit func(in any)) (state any, culprit *porcupine.Operation, illegal bool) {
	model.Partition = nil
	r, info := porcupine.CheckOperationsVerbose(model, part, timeout)
	if r != porcupine.Illegal {
		return nil, nil, false
	}
	var longest []porcupine.Operation
	// porcupine returns them in map order: take the least of the longest
	for _, lin := range info.PartialLinearizationsOperations() {
		for _, l := range lin {
			if len(l) > len(longest) || len(l) == len(longest) && slices.CompareFunc(l, longest, opOrder) < 0 {
				longest = l
			}
		}
	}
	in, state := map[any]bool{}, model.Init()
	for _, o := range longest {
		in[o.Input] = true
		_, state = model.Step(state, o.Input, o.Output)
		visit(o.Input)
	}
	for i := range part {
		o := &part[i]
		if in[o.Input] {
			continue
		}
		if culprit == nil || o.Return < culprit.Return || o.Return == culprit.Return && o.Call < culprit.Call {
			culprit = o
		}
	}
	return state, culprit, true
}

// Colours of the annotations in the porcupine visualisation.
const (
	faultColour = "#f6c9c9"
	infoColour  = "#fde9b6"
)

// infoNotes annotate the acquires with unknown outcome that the lock
// check left out, on their client's row.
func infoNotes(infoAcq []*op) []porcupine.Annotation {
	var ann []porcupine.Annotation
	for _, o := range infoAcq {
		ann = append(ann, porcupine.Annotation{
			ClientId: max(o.Process, 0), Start: o.Call, End: o.Done,
			Description: "acquire info " + o.Key,
			Details: fmt.Sprintf("op %d: acquire with unknown outcome (%s); it may hold the lock, and is left out of the check because it cannot change the verdict",
				o.Inv, o.Error),
			BackgroundColor: infoColour,
		})
	}
	return ann
}

// faultAnnotations annotate the fault windows that reach into [from, to]
// (ns), cut to it, on a "nemesis" row.
func faultAnnotations(faults []Window, from, to int64) []porcupine.Annotation {
	var ann []porcupine.Annotation
	for _, fw := range faults {
		if fw.End < from || fw.Start > to {
			continue
		}
		det := fmt.Sprintf("ops %d..%d", fw.StartOp, fw.StopOp)
		if fw.Unhealed {
			det = fmt.Sprintf("op %d; never healed before the history ended", fw.StartOp)
		}
		ann = append(ann, porcupine.Annotation{
			Tag: "nemesis", Start: max(fw.Start, from), End: min(fw.End, to), Description: fw.Label(),
			Details: det, BackgroundColor: faultColour,
		})
	}
	return ann
}
