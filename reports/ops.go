package reports

import (
	"github.com/lockstorm/lockstorm/history"
)

// clientOp is one client operation: its invoke paired with its completion by
// process (a process is single-threaded, so its next completion completes
// its open invoke). Times are ns since the run started.
type clientOp struct {
	F    string
	Proc int
	Inv  int64 // record index of the invoke
	Comp int64 // record index of the completion; meaningless when !Completed
	Call int64 // invoke time
	// Done is the completion time; meaningless when !Completed.
	Done int64
	// Type is the completion's type; Info also when never completed.
	Type      history.Type
	Completed bool
}

// Latency is Done-Call in ns (only meaningful when Completed).
func (s clientOp) Latency() int64 { return s.Done - s.Call }

// clientOps pairs h's client records into operations, in invoke order,
// skipping nemesis records, lost notifications and unpaired completions.
func clientOps(h history.History) []clientOp {
	pairs := history.Pairs(h)
	out := make([]clientOp, len(pairs))
	for i, p := range pairs {
		r := &h[p.Invoke]
		out[i] = clientOp{F: r.F, Proc: r.Process, Inv: r.Index, Call: r.Time, Type: history.Info}
		if p.Completion >= 0 {
			c := &h[p.Completion]
			out[i].Done, out[i].Type, out[i].Completed, out[i].Comp = c.Time, c.Type, true, c.Index
		}
	}
	return out
}

// seconds converts ns to s for plot axes.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// millis converts ns to ms for plot axes.
func millis(ns int64) float64 { return float64(ns) / 1e6 }
