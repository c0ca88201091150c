package checker

import (
	"slices"
	"sort"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Lease is what a history says about one lease, as its holder saw it. A
// lease is named by its acquire op, never by key+token (see fillTokens):
// releases, extends and lost signals are matched to it as fillTokens
// matches them, so extends recorded by a watchdog under another process
// still count. Times are ns since the run started.
//
// A lease is held from its acquire ok on, or, for an acquire with unknown
// outcome that a later extend ok renewed, from that extend's return on.
// Its holder stops holding at its first release's invoke, when it learns
// the lease is lost (an FLost record), or, failing both, never (the
// process stopped recording: see HeldUntil).
type Lease struct {
	Key     string
	Token   string // the acquire's token, or a synthetic "op#N"
	Process int    // the acquiring process
	Fence   int64  // the acquire's fencing token, 0 if none
	// Cut is when the holder stopped holding: its first release's invoke
	// or a lost signal, whichever came first; Inf if neither. CutBy is
	// "release", "lost" or "".
	Cut   int64
	CutBy string
	// NoExpiry is true when the acquire gave no validity and no TTL: the
	// holder believes the lease valid until it lets it go.
	NoExpiry bool
	// Last is the time of the acquiring process's last record.
	Last int64

	acq  *op
	segs [][2]int64 // [start, end]: an acquire or extend ok's return to its believed end
	held bool       // the lease has a segment (acquire ok, or renewed)

	// The server's side, for liveness: the latest extend ok's Return +
	// TTL (0 if none), the invoke of the first release ok (released says
	// whether there is one), and, for an acquire ok, the invoke of the
	// first release invoked at or after the acquire returned (holdEnd,
	// hasHoldEnd).
	extendedTo  int64
	releasedAt  int64
	released    bool
	holdEnd     int64
	hasHoldEnd  bool
	lostSignals int // lost records that moved Cut earlier
}

// Start is when the holder came to hold the lease (its first segment's
// start); Inf for a lease never held.
func (l *Lease) Start() int64 {
	if len(l.segs) == 0 {
		return Inf
	}
	return l.segs[0][0]
}

// Valid are the stretches [start, end] in which the holder believed the
// lease valid: from each acquire or extend ok's return to the validity it
// computed (its Validity; else its invoke + TTL − the drift allowance;
// else no end), merged, ordered and cut at Cut. Empty stretches are left
// out.
func (l *Lease) Valid() [][2]int64 {
	var out [][2]int64
	segs := append([][2]int64(nil), l.segs...)
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
// Ended says which: "release", "lost" or "gone".
func (l *Lease) HeldUntil() (end int64, ended string) {
	if l.CutBy != "" {
		return l.Cut, l.CutBy
	}
	return max(l.Last, l.Start()), "gone"
}

// Validity is the latest validity end the holder believed in while it
// held the lease (see Valid; segments starting after Cut do not count);
// 0 when it has none (no TTL, no validity recorded).
func (l *Lease) Validity() int64 {
	var v int64
	for _, s := range l.segs {
		if s[0] <= l.Cut && s[1] != Inf {
			v = max(v, s[1])
		}
	}
	return v
}

// AcquireOps are the acquire's record indices (invoke, and completion if
// any).
func (l *Lease) AcquireOps() []int64 { return l.acq.indices() }

// leaseSet is every lease of a history.
type leaseSet struct {
	byAcq  map[int]*Lease   // acquire index in the ops -> its lease (held or not)
	held   []*Lease         // held leases, in the order they came to be held
	byProc map[int][]*Lease // held leases by acquiring process, same order
	drift  time.Duration
	factor float64
}

// Leases extracts the leases of h that were ever held, in the order they
// came to be held. drift and factor are the clock-drift allowance (see
// lease.Allowance) subtracted from invoke + TTL for a lease whose holder
// recorded no validity; zero allowance believes the TTL in full.
func Leases(h history.History, drift time.Duration, factor float64) []*Lease {
	os := ops(h)
	fillTokens(os)
	return extractLeases(h, os, drift, factor).held
}

// extractLeases builds the lease set of h from its ops os (fillTokens
// applied).
func extractLeases(h history.History, os []op, drift time.Duration, factor float64) *leaseSet {
	s := &leaseSet{byAcq: map[int]*Lease{}, byProc: map[int][]*Lease{}, drift: drift, factor: factor}
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			if o.Type == history.OK {
				s.addSegment(s.hold(i, os), o)
			}
		case history.FExtend:
			s.extend(o, os)
		case history.FRelease:
			s.release(o, os)
		}
	}
	s.lostSignals(h)
	last := map[int]int64{}
	for i := range h {
		last[h[i].Process] = h[i].Time
	}
	for _, l := range s.held {
		l.Last = last[l.Process]
	}
	return s
}

// get is the lease of acquire index i, made on first use.
func (s *leaseSet) get(i int, os []op) *Lease {
	l := s.byAcq[i]
	if l == nil {
		a := &os[i]
		l = &Lease{Key: a.Key, Token: a.Token, Process: a.Process, Fence: a.Fence, acq: a, Cut: Inf}
		s.byAcq[i] = l
	}
	return l
}

// hold marks acquire i's lease held (once) and returns it.
func (s *leaseSet) hold(i int, os []op) *Lease {
	l := s.get(i, os)
	if !l.held {
		l.held = true
		s.held = append(s.held, l)
		s.byProc[l.Process] = append(s.byProc[l.Process], l)
	}
	return l
}

// addSegment adds the belief of acquire or extend ok o to l.
func (s *leaseSet) addSegment(l *Lease, o *op) {
	end, ok := s.believedEnd(o)
	if !ok && o.F == history.FAcquire {
		l.NoExpiry = true
	}
	l.segs = append(l.segs, [2]int64{o.Return, end})
}

// extend records an extend op: an ok renews its lease's belief (and
// makes an acquire with unknown outcome held from then on) and moves the
// server's expiry.
func (s *leaseSet) extend(o *op, os []op) {
	if o.Type != history.OK || o.Lease < 0 {
		return
	}
	l := s.get(o.Lease, os)
	if o.TTL > 0 {
		l.extendedTo = max(l.extendedTo, satAdd(o.Return, o.TTL))
	}
	if !l.held && os[o.Lease].Type != history.Fail {
		// an acquire with unknown outcome that took effect: its client
		// holds from the extend on
		s.hold(o.Lease, os)
	}
	s.addSegment(l, o)
}

// release records a release op: the first one cuts a held lease.
func (s *leaseSet) release(o *op, os []op) {
	if o.Lease < 0 {
		return
	}
	l := s.get(o.Lease, os)
	if o.Type == history.OK && !l.released {
		l.releasedAt, l.released = o.Call, true
	}
	if a := l.acq; a.Type == history.OK && !l.hasHoldEnd && o.Call >= a.Return {
		l.holdEnd, l.hasHoldEnd = o.Call, true
	}
	if l.held && o.Call < l.Cut {
		l.Cut, l.CutBy = o.Call, "release"
	}
}

// lostSignals cuts leases at the FLost records that name them (see
// lostLease).
func (s *leaseSet) lostSignals(h history.History) {
	for i := range h {
		r := &h[i]
		if r.F != history.FLost || r.IsNemesis() {
			continue
		}
		l := lostLease(s.byProc[r.Process], s.held, r)
		if l != nil && r.Time < l.Cut {
			l.Cut, l.CutBy = r.Time, "lost"
			l.lostSignals++
		}
	}
}

// believedEnd is the end of the client's validity for a segment starting
// with op o (acquire or extend ok): its Validity, else its invoke + TTL −
// the drift allowance (saturated), else no end.
func (s *leaseSet) believedEnd(o *op) (int64, bool) {
	switch {
	case o.Validity != 0:
		return o.Validity, true
	case o.TTL > 0:
		allow := int64(lease.Allowance(time.Duration(o.TTL), s.drift, s.factor))
		return max(satAdd(o.Call, o.TTL-allow), o.Call), true
	}
	return Inf, false
}

// lostLease is the lease a FLost record r names: the process's latest
// lease acquired by r's time with r's key and token, else any process's
// (a watchdog may report the loss), else, when r has no token, the
// process's current lease.
func lostLease(own, all []*Lease, r *history.Op) *Lease {
	if r.Token == "" {
		return leaseAt(own, r.Time)
	}
	for _, ls := range [][]*Lease{own, all} {
		var best *Lease
		for _, l := range ls {
			if l.Key == r.Key && l.Token == r.Token && l.acq.Return <= r.Time && (best == nil || l.acq.Return > best.acq.Return) {
				best = l
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// leaseAt is the process's latest lease acquired (Return) at or before t
// and not released (release invoke) before t; nil if none.
func leaseAt(ls []*Lease, t int64) *Lease {
	for i := len(ls) - 1; i >= 0; i-- {
		l := ls[i]
		if l.acq.Return > t {
			continue
		}
		if l.CutBy == "release" && l.Cut < t {
			return nil
		}
		return l
	}
	return nil
}

// Interval is a stretch [Start, End] (ns) of one lease.
type Interval struct {
	Lease      *Lease
	Start, End int64
}

// Overlap is a stretch of time in which two leases of different processes
// on one key were both held, in the sense of the intervals compared (see
// ValidOverlaps and HeldOverlaps). A started no later than B; the
// intersection is [B.Start, min(A.End, B.End)] and is never empty.
type Overlap struct {
	Key  string
	A, B Interval
}

// Start is when the overlap began.
func (o Overlap) Start() int64 { return o.B.Start }

// End is when the overlap ended.
func (o Overlap) End() int64 { return min(o.A.End, o.B.End) }

// ValidOverlaps finds every pair of leases of different processes on one
// key whose Valid stretches intersect (for a positive time): two clients
// that each believed, by their own validity, that they held the lock.
// A correct lock with clients that honour their validity never shows one;
// this is the exclusion checker's "overlap". Keys are in order; within a
// key, pairs come in the order their later stretch starts.
func ValidOverlaps(ls []*Lease) []Overlap {
	return overlapsOf(ls, func(l *Lease) [][2]int64 { return l.Valid() })
}

// HeldOverlaps is ValidOverlaps over the stretches [Start, HeldUntil]:
// two clients acting as holder at once, whatever their validity said. A
// holder paused past its validity shows here and not in ValidOverlaps;
// holders.png draws these, so that the picture shows the pause (the
// verdict's overlaps are ValidOverlaps).
func HeldOverlaps(ls []*Lease) []Overlap {
	return overlapsOf(ls, func(l *Lease) [][2]int64 {
		end, _ := l.HeldUntil()
		return [][2]int64{{l.Start(), end}}
	})
}

// overlapsOf sweeps the stretches that span gives each lease, key by key.
func overlapsOf(ls []*Lease, span func(*Lease) [][2]int64) []Overlap {
	byKey := map[string][]Interval{}
	for _, l := range ls {
		for _, s := range span(l) {
			byKey[l.Key] = append(byKey[l.Key], Interval{l, s[0], s[1]})
		}
	}
	var out []Overlap
	for _, k := range sortedKeys(byKey) {
		ivs := byKey[k]
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].Start < ivs[j].Start })
		var active []Interval
		for _, c := range ivs {
			active = slices.DeleteFunc(active, func(a Interval) bool { return a.End <= c.Start })
			for _, a := range active {
				if a.Lease.Process != c.Lease.Process && min(a.End, c.End) > c.Start {
					out = append(out, Overlap{Key: k, A: a, B: c})
				}
			}
			active = append(active, c)
		}
	}
	return out
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
