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
// their client's row. l may be nil (NewLock()).
//
// Porcupine's visualisation is built for thousands of operations, not
// millions: the report should call it only for histories of modest size.
func WritePorcupineHTML(w io.Writer, h history.History, l *Lock) error {
	if l == nil {
		l = NewLock()
	}
	pops, tokens, infoAcq, _ := l.lockOps(h)
	model := lockModel(true, tokens)
	_, info := porcupine.CheckOperationsVerbose(model, pops, searchTimeout(context.Background(), l.Timeout))
	var ann []porcupine.Annotation
	ann = append(ann, faultAnnotations(h)...)
	for _, o := range infoAcq {
		end := o.Done
		ann = append(ann, porcupine.Annotation{
			ClientId: max(o.Process, 0), Start: o.Call, End: end,
			Description: "acquire info " + o.Key,
			Details: fmt.Sprintf("op %d: acquire with unknown outcome (%s); it may hold the lock, and is left out of the check because it cannot change the verdict",
				o.Inv, o.Error),
			BackgroundColor: infoColour,
		})
	}
	info.AddAnnotations(ann)
	return porcupine.Visualize(model, info, w)
}

// WriteCounterHTML is WritePorcupineHTML for the counter's critical
// sections (the resource checker's porcupine model).
func WriteCounterHTML(w io.Writer, h history.History, timeout time.Duration) error {
	pops := sectionOps(counterSections(ops(h)))
	model := counterModel(true)
	_, info := porcupine.CheckOperationsVerbose(model, pops, searchTimeout(context.Background(), timeout))
	info.AddAnnotations(faultAnnotations(h))
	return porcupine.Visualize(model, info, w)
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
