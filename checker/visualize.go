package checker

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// Colours of the annotations in the porcupine visualisation.
const (
	faultColour = "#f6c9c9"
	infoColour  = "#fde9b6"
)

// WritePorcupineHTML writes porcupine's own visualisation of the lock
// check (one timeline per lock key, the linearization or the longest
// partial ones) as a self-contained HTML page. Fault windows appear as
// annotations on a "nemesis" row (unhealed ones say so), and acquires
// with unknown outcome, which the check leaves out, as annotations on
// their client's row. l may be nil (NewLock()). It returns the search's
// own verdict (Linearization.Valid).
//
// It runs the search again: a fresh check keeps it instead
// (LockDetails.Linearization; draw that with its WriteHTML). Porcupine's
// visualisation is built for thousands of operations, not millions: the
// report should call it only for histories of modest size.
func WritePorcupineHTML(w io.Writer, h history.History, l *Lock) (Validity, error) {
	if l == nil {
		l = NewLock()
	}
	s := l.lockOps(h)
	return drawSearch(w, h, lockModel(s.tokens, 0), s.ops, l.Timeout, infoNotes(s.infoAcq))
}

// drawSearch writes the visualisation of porcupine's verbose search of
// pops on h (see Linearization.WriteHTML) and returns its verdict.
func drawSearch(w io.Writer, h history.History, model porcupine.Model, pops []porcupine.Operation, timeout time.Duration, notes []porcupine.Annotation) (Validity, error) {
	r, info := porcupine.CheckOperationsVerbose(model, pops, searchTimeout(context.Background(), timeout))
	z := Linearization{model: model, info: info, notes: notes, valid: validityOf(r)}
	return z.valid, z.WriteHTML(w, h)
}

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

// WriteCounterHTML is WritePorcupineHTML for the counter's critical
// sections (the resource checker's porcupine model); a fresh check keeps
// its search in ResourceDetails.Linearization.
func WriteCounterHTML(w io.Writer, h history.History, timeout time.Duration) (Validity, error) {
	return drawSearch(w, h, counterModel(), sectionOps(counterSections(ops(h))), timeout, nil)
}

func faultAnnotations(h history.History) []porcupine.Annotation {
	var ann []porcupine.Annotation
	for _, fw := range FaultWindows(h) {
		det := fmt.Sprintf("ops %d..%d", fw.StartOp, fw.StopOp)
		if fw.Unhealed {
			det = fmt.Sprintf("op %d; never healed before the history ended", fw.StartOp)
		}
		ann = append(ann, porcupine.Annotation{
			Tag: "nemesis", Start: fw.Start, End: fw.End, Description: fw.Label(),
			Details: det, BackgroundColor: faultColour,
		})
	}
	return ann
}
