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
	// KindLateWriteInOrder: the resource accepted it in token order while
	// no newer token had been handed to any client yet, so no newer
	// holder could have acted between it and its predecessor: harmless
	// (LateWriteFatal). Not fatal.
	KindLateWriteInOrder = "write-after-validity-in-order"
	// KindLateWriteRejected: the fencing resource rejected it (fencing at
	// work). Not fatal.
	KindLateWriteRejected = "write-after-validity-rejected"
)

// LateWriteFatal is the one rule for a write the resource accepted
// although its process invoked it outside its lease: whether it makes
// the run invalid. The exclusion checker, the live violation count and,
// through the verdict, every report (run, compare, sweep) follow it.
//
// Without a fencing resource (fenced false), or for a write that carries
// no fencing token (fence 0), it is fatal: nothing stops it from landing
// in a newer holder's critical section.
//
// Under fencing it is fatal only when a newer token (newest > fence) had
// already been handed to a client (an acquire ok on the same key had
// returned) by the time the write returned: that newer holder may have
// read the resource before the late write landed, and the late write is
// then accepted because the newer holder had not written yet. Otherwise
// no client held a newer lease while the write was in flight, the write
// is in token order and harmless: once the next holder writes, the
// resource rejects anything older.
//
// newest is the highest fencing token returned by an acquire ok on the
// lock key of the writer's lease (any key if it held none) at or before
// the write's return (0: none).
func LateWriteFatal(fenced bool, fence, newest int64) bool {
	return !fenced || fence == 0 || newest > fence
}

// leaseKey is the lock key of lease l, "" (every key) for none.
func leaseKey(l *Lease) string {
	if l == nil {
		return ""
	}
	return l.Key
}

// newestFences answers, per lock key, the highest fencing token an acquire ok
// had returned by an instant (newest): the acquire oks of the history,
// sorted by return time, with the running maximum of their tokens.
type newestFences map[string][]fenceAt

// fenceAt is one acquire ok: its return time (ns) and the highest token
// returned on its key up to it.
type fenceAt struct{ at, max int64 }

// newestFencesOf indexes the acquire oks of os that carry a token.
func newestFencesOf(os []op) newestFences {
	n := newestFences{}
	for i := range os {
		if o := &os[i]; o.F == history.FAcquire && o.Type == history.OK && o.Fence != 0 {
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

// newest is the highest token returned on lock key at or before t (0:
// none); over every key for key "" (a write made without any lease).
func (n newestFences) newest(key string, t int64) int64 {
	if key == "" {
		var m int64
		for k := range n {
			m = max(m, n.newest(k, t))
		}
		return m
	}
	fs := n[key]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].at > t })
	if i == 0 {
		return 0
	}
	return fs[i-1].max
}
