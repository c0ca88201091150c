package checker

import (
	"cmp"
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// Kinds of a write its process invoked outside its lease (after its
// validity, after it released the lease or was told it was lost, or with
// no lease at all), by the resource's answer (see Exclusion).
const (
	// KindLateWrite: the resource accepted it, and it may have landed in a
	// newer holder's critical section (LateWriteFatal). Fatal.
	KindLateWrite = "write-after-validity"
	// KindLateWriteInOrder: a fencing resource accepted it in token order,
	// before any newer token reached it, so no newer holder had acted on
	// the resource yet: harmless (LateWriteFatal). Not fatal.
	KindLateWriteInOrder = "write-after-validity-in-order"
	// KindLateWriteRejected: the fencing resource rejected it (fencing at
	// work). Not fatal.
	KindLateWriteRejected = "write-after-validity-rejected"
)

// LateWriteFatal is the one rule (followed by the exclusion checker, the
// live violation count and every report) for whether a write the
// resource accepted although its process invoked it outside its lease
// makes the run invalid. Without fencing (fenced false) or a token (fence
// 0) it is fatal: nothing stops it landing in a newer holder's critical
// section. Under fencing it is fatal only out of token order: the
// resource had accepted a newer token on its key first (newest > fence),
// so it landed in that holder's section (the fencing checker reports it
// as stale-write-accepted too); in token order it is harmless, as the
// resource rejects it from the newer holder's first fenced op on.
//
// newest is the highest token the resource is known to have accepted on
// the key before the write arrived: from its own log when there is one,
// else what the history proves (a fenced read or write ok returned by the
// write's invoke); 0 for none.
func LateWriteFatal(fenced bool, fence, newest int64) bool {
	return !fenced || fence == 0 || newest > fence
}

// acceptedFences answers, per resource key, the highest fencing token the
// resource had surely accepted before an instant: its fenced reads and
// writes that returned ok, sorted by return time, with the running
// maximum of their tokens.
type acceptedFences map[string][]fenceAt

// fenceAt is one accepted op: its return time (ns) and the highest token
// accepted on its key up to it.
type fenceAt struct{ at, max int64 }

// acceptedFencesOf indexes the fenced reads and writes ok of os.
func acceptedFencesOf(os []op) acceptedFences {
	n := acceptedFences{}
	for i := range os {
		if o := &os[i]; (o.F == history.FRead || o.F == history.FWrite) && o.Type == history.OK && o.Fence != 0 {
			n[o.Key] = append(n[o.Key], fenceAt{at: o.Return, max: o.Fence})
		}
	}
	for _, fs := range n {
		slices.SortStableFunc(fs, func(a, b fenceAt) int { return cmp.Compare(a.at, b.at) })
		for i := 1; i < len(fs); i++ {
			fs[i].max = max(fs[i].max, fs[i-1].max)
		}
	}
	return n
}

// before is the highest token accepted on key by an op that returned at
// or before t (0: none).
func (n acceptedFences) before(key string, t int64) int64 {
	fs := n[key]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].at > t })
	if i == 0 {
		return 0
	}
	return fs[i-1].max
}

// newestBefore is LateWriteFatal's newest for write w: the highest token
// accepted on its key before it arrived, by the resource's log l (the
// token it had accepted before, when w is one of the stale writes it
// accepted; nil: no log) and by the history (acc).
func newestBefore(w *op, acc acceptedFences, l *ServerLog) int64 {
	n := acc.before(w.Key, w.Call)
	if l != nil {
		for _, s := range l.stale {
			if s.key == w.Key && s.fence == w.Fence && s.value == w.Value {
				n = max(n, s.prev)
			}
		}
	}
	return n
}
