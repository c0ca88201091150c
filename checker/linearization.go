package checker

import (
	"io"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// Linearization is a porcupine search kept for drawing porcupine's
// visualisation: the model, and what porcupine found (the linearization
// of every key, or the longest partial ones), with annotations for ops
// the check left out. It lives in memory only: results.json does not
// hold it, so a result read back from disk has none.
type Linearization struct {
	model porcupine.Model
	info  porcupine.LinearizationInfo
	notes []porcupine.Annotation
	// valid is the search's own verdict: Valid when porcupine
	// linearized every key, Invalid when it proved one cannot be,
	// Unknown when it ran out of time.
	valid Validity
}

// Valid is the verdict of this search alone (not the run's: other
// checkers may find what it cannot see): the verdict the page drawn
// from it shows.
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

// WriteHTML writes porcupine's visualisation of the search as a
// self-contained HTML page, with h's fault windows as annotations on a
// "nemesis" row (unhealed ones say so).
func (z *Linearization) WriteHTML(w io.Writer, h history.History) error {
	info := z.info // AddAnnotations appends: keep z's own unchanged
	info.AddAnnotations(append(faultAnnotations(h), z.notes...))
	return porcupine.Visualize(z.model, info, w)
}

// search runs porcupine on pops within timeout. For at most
// VisualizeMaxOps pops it runs the verbose search and returns it as a
// Linearization (notes annotating it), else nil. Both searches give the
// same verdict.
func search(model porcupine.Model, pops []porcupine.Operation, timeout time.Duration, notes []porcupine.Annotation) (porcupine.CheckResult, *Linearization) {
	if len(pops) > VisualizeMaxOps {
		return porcupine.CheckOperationsTimeout(model, pops, timeout), nil
	}
	r, info := porcupine.CheckOperationsVerbose(model, pops, timeout)
	return r, &Linearization{model: model, info: info, notes: notes, valid: validityOf(r)}
}

// unplaced re-checks one key's ops verbosely. For a history that is not
// linearizable it steps the model through the longest partial
// linearization porcupine found, calling visit with each input, and
// returns the state reached and, of the ops outside it, the one that
// returned first (ties: invoked first; nil if none); illegal is false
// otherwise.
func unplaced(model porcupine.Model, part []porcupine.Operation, timeout time.Duration, visit func(in any)) (state any, culprit *porcupine.Operation, illegal bool) {
	model.Partition = nil
	r, info := porcupine.CheckOperationsVerbose(model, part, timeout)
	if r != porcupine.Illegal {
		return nil, nil, false
	}
	var longest []porcupine.Operation
	// porcupine returns the partial linearizations in map order: of the
	// longest, take the least in linearizationLess, so that the
	// explanation is the same on every run
	for _, lin := range info.PartialLinearizationsOperations() {
		for _, l := range lin {
			if len(l) > len(longest) || len(l) == len(longest) && linearizationLess(l, longest) {
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

// linearizationLess orders two partial linearizations of equal length by
// their ops' (Call, Return), first difference first.
func linearizationLess(a, b []porcupine.Operation) bool {
	for i := range min(len(a), len(b)) {
		if a[i].Call != b[i].Call {
			return a[i].Call < b[i].Call
		}
		if a[i].Return != b[i].Return {
			return a[i].Return < b[i].Return
		}
	}
	return false
}
