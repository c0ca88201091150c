package checker

import (
	"cmp"
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// Kinds of a write invoked outside its lease, by the resource's answer:
// accepted (fatal: see LateWriteFatal), accepted by a fencing resource in
// token order (harmless), rejected by the fencing resource.
const (
	KindLateWrite         = "write-after-validity"
	KindLateWriteInOrder  = "write-after-validity-in-order"
	KindLateWriteRejected = "write-after-validity-rejected"
)

// LateWriteFatal is the one rule (for the exclusion checker, the live
// violation count and every report) for whether a write the resource
// accepted although invoked outside its lease makes the run invalid:
// without fencing or a token (fence 0) it is; under fencing only out of
// token order, when the resource had accepted a newer token on its key
// first (newest: the highest known, 0 for none), so it landed in a newer
// holder's section.
func LateWriteFatal(fenced bool, fence, newest int64) bool {
	return !fenced || fence == 0 || newest > fence
}

// acceptedFences are, per key, the fenced reads and writes ok by return
// time, with the running maximum of their tokens.
type acceptedFences map[string][]fenceAt

// fenceAt is one accepted op's return time (ns) and the highest token up to it.
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

// newestBefore is LateWriteFatal's newest for write w, by the history
// (acc) and the resource's log l (nil: none).
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
