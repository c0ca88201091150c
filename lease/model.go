package lease

import (
	"math"
	"sort"
)

// Inf is a time that never comes: the end of a lease with no expiry, the
// cut of a lease nothing cut.
const Inf int64 = math.MaxInt64

// How a holder stopped holding its lease (Lease.CutBy, Lease.HeldUntil).
const (
	EndRelease = "release" // its release's invoke
	EndLost    = "lost"    // it learned the lease was lost (an FLost record)
	EndGone    = "gone"    // neither: its process stopped recording (crashed, or the run ended)
)

// Lease is what a history says about one lease, as its holder saw it. A
// lease is named by its acquire, never by key and token: the Tracker
// matches releases, extends and lost notices to it (see Tracker), so
// extends recorded by a watchdog under another process still count.
// Times are ns since the run started.
//
// A lease is held from its acquire ok on, or, for an acquire with unknown
// outcome that a later extend ok renewed, from that extend's return on.
// Its holder stops holding at its first release's invoke, when it learns
// the lease is lost, or, failing both, when its process stops recording
// (see HeldUntil).
type Lease struct {
	Key     string
	Token   string // the acquire's token, or a synthetic "op#N" (N: its invoke's index)
	Process int    // the acquiring process
	Fence   int64  // the acquire's fencing token, 0 if none
	// Invoke and Completion are the acquire's record indices (Completion
	// -1 when it never completed); Return is its completion time, Inf
	// when its outcome is unknown.
	Invoke, Completion int64
	Return             int64
	// StartOp is the index of the record that started the lease: its
	// acquire's ok, or the extend ok that renewed an unknown acquire.
	StartOp int64
	// Cut is when the holder stopped holding: its first release's invoke
	// or a lost notice, whichever came first; Inf if neither. CutBy is
	// EndRelease, EndLost or "".
	Cut   int64
	CutBy string
	// LostSignals counts the lost notices that moved Cut earlier.
	LostSignals int
	// NoExpiry is true when the acquire gave no validity and no TTL: the
	// holder believes the lease valid until it lets it go.
	NoExpiry bool
	// Last is the time of the acquiring process's last record so far.
	Last int64
	// Segments are [start, end]: each acquire or extend ok's return to
	// the end of validity it meant (see Tracker), in the order seen.
	Segments [][2]int64

	held   bool
	ended  bool // Ended was yielded
	heldAt int  // rank among the leases held
}

// Start is when the holder came to hold the lease (its first segment's
// start); Inf for a lease never held.
func (l *Lease) Start() int64 {
	if len(l.Segments) == 0 {
		return Inf
	}
	return l.Segments[0][0]
}

// Valid are the stretches [start, end] in which the holder believed the
// lease valid: its segments merged, ordered and cut at Cut. Empty
// stretches are left out.
func (l *Lease) Valid() [][2]int64 {
	var out [][2]int64
	segs := append([][2]int64(nil), l.Segments...)
	sort.Slice(segs, func(i, j int) bool { return segs[i][0] < segs[j][0] })
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

// HeldUntil is when the holder stopped acting as holder: Cut, or, when
// nothing cut the lease, its process's last record (at least Start).
// ended says which: EndRelease, EndLost or EndGone.
func (l *Lease) HeldUntil() (end int64, ended string) {
	if l.CutBy != "" {
		return l.Cut, l.CutBy
	}
	return max(l.Last, l.Start()), EndGone
}

// Validity is the latest validity end the holder believed in while it
// held the lease (segments starting after Cut do not count); 0 when it
// has none (no TTL, no validity recorded).
func (l *Lease) Validity() int64 {
	var v int64
	for _, s := range l.Segments {
		if s[0] <= l.Cut && s[1] != Inf {
			v = max(v, s[1])
		}
	}
	return v
}

// AcquireOps are the acquire's record indices (invoke, and completion if
// any).
func (l *Lease) AcquireOps() []int64 {
	if l.Completion < 0 {
		return []int64{l.Invoke}
	}
	return []int64{l.Invoke, l.Completion}
}

// At is the latest of a process's leases ls (in the order they came to
// be held) acquired (Return) at or before t, nil when there is none or
// when it was released (its release invoked) before t.
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
