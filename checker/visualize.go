package checker

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

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
