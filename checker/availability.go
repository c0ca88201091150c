package checker

import (
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// availability is acquire progress per fault window: acquires invoked in
// it, acquire oks returned in it and in the quiet period after it (until
// the next window that starts after it ends, or the history's end), and
// the time to the first acquire ok after it. It sorts the invoke times and
// the ok return times once and counts by binary search, so its cost is
// O((windows + acquires) · log acquires) rather than their product.
func (r *livenessRun) availability() {
	if len(r.windows) == 0 {
		return
	}
	calls := make([]int64, 0, len(r.acq))
	var rets []int64 // Returns of acquire oks
	for _, o := range r.acq {
		calls = append(calls, o.Call)
		if o.Type == history.OK {
			rets = append(rets, o.Return)
		}
	}
	slices.Sort(calls)
	slices.Sort(rets)
	// atMost and below count the sorted xs that are <= t and < t.
	atMost := func(xs []int64, t int64) int { return sort.Search(len(xs), func(i int) bool { return xs[i] > t }) }
	below := func(xs []int64, t int64) int { return sort.Search(len(xs), func(i int) bool { return xs[i] >= t }) }
	// sufMin[i] is the least Start of the windows after i.
	sufMin := make([]int64, len(r.windows)+1)
	sufMin[len(r.windows)] = Inf
	for i := len(r.windows) - 1; i >= 0; i-- {
		sufMin[i] = min(sufMin[i+1], r.windows[i].Start)
	}
	for i, w := range r.windows {
		wa := WindowAvailability{Window: w, RecoveryNS: -1}
		next := r.end
		if sufMin[i+1] > w.End {
			next = min(next, sufMin[i+1])
		} else { // a later window starts before this one ends: scan
			for _, w2 := range r.windows[i+1:] {
				if w2.Start > w.End {
					next = min(next, w2.Start)
				}
			}
		}
		if w.End >= w.Start {
			wa.Invoked = atMost(calls, w.End) - below(calls, w.Start)
			wa.OK = atMost(rets, w.End) - below(rets, w.Start)
		}
		after := atMost(rets, w.End) // first ok returned after the window
		if next > w.End {
			wa.AfterOK = atMost(rets, next) - after
		}
		if after < len(rets) {
			wa.RecoveryNS = rets[after] - w.End
		}
		r.d.Windows = append(r.d.Windows, wa)
	}
}
