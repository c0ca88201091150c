package lease

import (
	"cmp"
	"math"
	"slices"
)

// Inf is a time that never comes.
const Inf int64 = math.MaxInt64

// How a holder stopped holding its lease (Lease.CutBy, Lease.HeldUntil).
const (
	EndRelease = "release" // its release's invoke
	EndLost    = "lost"    // it learned the lease was lost (an FLost record)
	EndGone    = "gone"    // neither: its process stopped recording (crashed, or the run ended)
)

// Lease is what a history says about one lease, as its holder saw it,
// named by its acquire (the Tracker matches the records acting on it).
// Times are ns since the run started.
type Lease struct {
	Key     string
	Token   string // the acquire's token, or a synthetic "op#N" (N: its invoke's index)
	Process int    // the acquiring process
	Fence   int64  // the acquire's fencing token, 0 if none
	// Invoke and Completion are the acquire's record indices (Completion
	// -1: never completed); Return its completion time (Inf: unknown).
	Invoke, Completion int64
	Return             int64
	StartOp            int64 // the record that started the lease (acquire or extend ok)
	// Cut is when the holder stopped holding by a release invoke or lost
	// notice (Inf: neither); CutBy is EndRelease, EndLost or "".
	Cut         int64
	CutBy       string
	LostSignals int   // lost notices that moved Cut earlier
	NoExpiry    bool  // no validity and no TTL: valid until let go
	Last        int64 // the acquiring process's last record's time so far
	// Segments are each acquire or extend ok's [return, validity end], in
	// the order seen.
	Segments [][2]int64

	held   bool
	ended  bool        // Ended was yielded
	heldAt int         // rank among the leases held
	first  [1][2]int64 // Segments' first array
}

// Start is when the lease came to be held; Inf if never.
func (l *Lease) Start() int64 {
	if len(l.Segments) == 0 {
		return Inf
	}
	return l.Segments[0][0]
}

// Valid are the non-empty stretches in which the holder believed the
// lease valid: its segments merged, ordered and cut at Cut.
func (l *Lease) Valid() [][2]int64 {
	var out [][2]int64
	segs := l.Segments // or a copy sorted by start when out of order (renewals come in order)
	if byStart := func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) }; !slices.IsSortedFunc(segs, byStart) {
		segs = slices.SortedStableFunc(slices.Values(segs), byStart)
	}
	for _, s := range segs {
		s[1] = min(s[1], l.Cut)
		if s[1] <= s[0] {
			continue
		}
		if n := len(out); n > 0 && s[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// HeldUntil is when and how the holder stopped holding: Cut, else its
// process's last record (at least Start, EndGone).
func (l *Lease) HeldUntil() (end int64, ended string) {
	if l.CutBy != "" {
		return l.Cut, l.CutBy
	}
	return max(l.Last, l.Start()), EndGone
}

// Validity is the latest validity end of the segments begun by Cut; 0
// when none.
func (l *Lease) Validity() int64 {
	var v int64
	for _, s := range l.Segments {
		if s[0] <= l.Cut && s[1] != Inf {
			v = max(v, s[1])
		}
	}
	return v
}

// AcquireOps are the acquire's record indices.
func (l *Lease) AcquireOps() []int64 {
	if l.Completion < 0 {
		return []int64{l.Invoke}
	}
	return []int64{l.Invoke, l.Completion}
}

// At is the latest of a process's leases ls acquired by t, nil when none
// or when it was released before t.
func At(ls []*Lease, t int64) *Lease {
	for i := len(ls) - 1; i >= 0; i-- {
		l := ls[i]
		if l.Return > t {
			continue
		}
		if l.CutBy == EndRelease && l.Cut < t {
			return nil
		}
		return l
	}
	return nil
}
