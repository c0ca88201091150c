package reports

import (
	"github.com/lockstorm/lockstorm/history"
)

// span is one client operation: its invoke paired with its completion by
// process (a process is single-threaded, so its next completion completes
// its open invoke). Times are ns since the run started.
type span struct {
	F    string
	Proc int
	Inv  int64 // record index of the invoke
	Call int64 // invoke time
	// Done is the completion time; meaningless when !Completed.
	Done int64
	// Type is the completion's type; Info also when never completed.
	Type      history.Type
	Completed bool
}

// Latency is Done-Call in ns (only meaningful when Completed).
func (s span) Latency() int64 { return s.Done - s.Call }

// spans pairs h's client records into operations, in invoke order.
// Nemesis records and lost notifications are skipped. A completion with no
// open invoke (a malformed history) is ignored.
func spans(h history.History) []span {
	out := make([]span, 0, len(h)/2)
	open := map[int]int{} // process -> index into out
	for i := range h {
		r := &h[i]
		if r.IsNemesis() || r.F == history.FLost {
			continue
		}
		if r.Type == history.Invoke {
			open[r.Process] = len(out)
			out = append(out, span{F: r.F, Proc: r.Process, Inv: r.Index, Call: r.Time, Type: history.Info})
			continue
		}
		j, ok := open[r.Process]
		if !ok {
			continue
		}
		delete(open, r.Process)
		out[j].Done, out[j].Type, out[j].Completed = r.Time, r.Type, true
	}
	return out
}

// endTime is the time of h's last record (0 for an empty history).
func endTime(h history.History) int64 {
	var end int64
	for i := range h {
		end = max(end, h[i].Time)
	}
	return end
}

// seconds converts ns to s for plot axes.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// millis converts ns to ms for plot axes.
func millis(ns int64) float64 { return float64(ns) / 1e6 }
