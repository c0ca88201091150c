package reports

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/resource"
)

// hold is one lease as its holder believed it (checker.Lease.Start to
// HeldUntil), as holders.png draws it; times in ns.
type hold struct {
	*checker.Lease
	Start, End int64
	// Validity is checker.Lease.Validity; 0: never expires (no TTL).
	Validity int64
	// Ended says how the belief ended: "release", "lost" or "gone" (the
	// process stopped recording, e.g. it crashed or the run ended).
	Ended string
}

// overlap is a stretch of time in which two leases of different processes
// were both believed held (checker.HeldOverlaps).
type overlap struct {
	Start, End int64
	A, B       int // indices into the holds slice
}

// holds are h's leases as the checkers see them under opt
// (checker.Leases), ordered by Start.
func holds(h history.History, opt lease.Options) []hold {
	var out []hold
	for _, l := range checker.Leases(h, opt.Drift, opt.DriftFactor) {
		end, ended := l.HeldUntil()
		out = append(out, hold{Lease: l, Start: l.Start(), End: end, Validity: l.Validity(), Ended: ended})
	}
	slices.SortStableFunc(out, func(a, b hold) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// overlaps are the pairs of hs believed held at once
// (checker.HeldOverlaps), ordered by start.
func overlaps(hs []hold) []overlap {
	idx := map[*checker.Lease]int{}
	ls := make([]*checker.Lease, len(hs))
	for i := range hs {
		idx[hs[i].Lease], ls[i] = i, hs[i].Lease
	}
	var out []overlap
	for _, o := range checker.HeldOverlaps(ls) {
		out = append(out, overlap{Start: o.Start(), End: o.End(), A: idx[o.A.Lease], B: idx[o.B.Lease]})
	}
	slices.SortStableFunc(out, func(a, b overlap) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// lostPair is one lost increment of the counter workload: two
// acknowledged writes of the same value, by their invoke record indices.
type lostPair struct{ A, B int64 }

// lostPairs are v's "lost-update" anomalies naming two writes of h (at
// maps the history's indices to h's; nil: h is the whole history).
func lostPairs(h history.History, v checker.Result, at func(i int64) (int64, bool)) []lostPair {
	var out []lostPair
	for _, a := range allAnomalies(v) {
		if a.Kind != "lost-update" {
			continue
		}
		var ws []int64
		for _, o := range a.Ops {
			if at != nil {
				j, ok := at(o)
				if !ok {
					continue
				}
				o = j
			}
			if o >= 0 && o < int64(len(h)) && h[o].Type == history.Invoke && h[o].F == history.FWrite {
				ws = append(ws, o)
			}
		}
		if len(ws) == 2 {
			out = append(out, lostPair{ws[0], ws[1]})
		}
	}
	return out
}

// HeldOverlaps counts the pairs of leases of different clients believed
// held at once in h (acquire ok to release, not validity): the red of
// holders.png.
func HeldOverlaps(h history.History) int { return len(overlaps(holds(h, lease.Options{}))) }

// detail is what the pictures drawn record by record share, derived once
// from the kept history h (whole, or the records around its anomalies).
type detail struct {
	h   history.History
	sp  []clientOp
	sm  slotMap
	ws  []checker.Window
	hs  []hold
	ovs []overlap
	// within counts the pairs of leases overlapping within validity, as
	// the exclusion checker's overlaps (checker.ValidOverlaps)
	within int
	marks  []arrival
	lost   []lostPair
}

// detailOf is h's detail, with the resource log's entries of h (writes).
func detailOf(h history.History, sm slotMap, ws []checker.Window, writes []resource.Write, lost []lostPair, opt lease.Options) *detail {
	hs, sp := holds(h, opt), clientOps(h)
	ls := make([]*checker.Lease, len(hs))
	for i := range hs {
		ls[i] = hs[i].Lease
	}
	return &detail{h: h, sp: sp, sm: sm, ws: ws, hs: hs, ovs: overlaps(hs), within: len(checker.ValidOverlaps(ls)),
		marks: arrivals(h, sp, writes), lost: lost}
}

// arrival is one resource operation (write, enter, lead, run) with, when
// the resource's log has it, when the resource handled it; times in ns.
type arrival struct {
	clientOp
	Key          string
	Value, Fence int64
	// Arrive is the matching log entry's Time; Known: there is one.
	Arrive int64
	Known  bool
	// The resource's account when Known: accepted, the token below
	// Highest, the key's highest accepted token at arrival.
	Accepted, Stale bool
	Highest         int64
}

// At is where a chart draws the operation: its arrival when known, else
// its send.
func (a arrival) At() int64 {
	if a.Known {
		return a.Arrive
	}
	return a.Call
}

// arrivals pairs each resource operation of h (sp: clientOps of h) with
// its log entry, in invoke order: an entry matches an operation of its
// key, token and (writes) value in flight then; entries in time order,
// each to the candidate completing first, which places the most.
func arrivals(h history.History, sp []clientOp, writes []resource.Write) []arrival {
	var out []arrival
	for _, s := range sp {
		if !resourceOps[s.F] {
			continue
		}
		r := &h[s.Inv]
		out = append(out, arrival{clientOp: s, Key: r.Key, Value: r.Value, Fence: r.Fence})
	}
	type mkey struct {
		key          string
		value, fence int64
		enter        bool
	}
	keyOf := func(key string, value, fence int64, enter bool) mkey {
		if enter {
			value = 0 // an enter's logged value is not the request's
		}
		return mkey{key, value, fence, enter}
	}
	cands := map[mkey][]int{} // -> indices into out, in invoke order
	for i, a := range out {
		if a.F != history.FWrite && a.F != history.FEnter {
			continue // the resource logs writes and enters only
		}
		k := keyOf(a.Key, a.Value, a.Fence, a.F == history.FEnter)
		cands[k] = append(cands[k], i)
	}
	log := slices.Clone(writes)
	slices.SortStableFunc(log, func(a, b resource.Write) int { return cmp.Compare(a.Time, b.Time) })
	highest := map[string]int64{}
	for _, w := range log {
		hi, seen := highest[w.Key]
		if !seen || w.Accepted && w.Fence > hi {
			highest[w.Key] = w.Fence
		}
		if w.Read {
			continue
		}
		k := keyOf(w.Key, w.Value, w.Fence, w.Enter)
		cs := cands[k]
		for len(cs) > 0 && (out[cs[0]].Known || out[cs[0]].Completed && out[cs[0]].Done < w.Time) {
			cs = cs[1:] // placed, or over before this entry and so before every later one
		}
		cands[k] = cs
		best := -1
		for _, i := range cs {
			a := &out[i]
			if a.Call > w.Time {
				break // invoke order: every later candidate was sent later still
			}
			if a.Known || a.Completed && a.Done < w.Time {
				continue
			}
			if best < 0 || deadline(*a) < deadline(out[best]) {
				best = i
			}
		}
		if best >= 0 {
			a := &out[best]
			a.Arrive, a.Known, a.Accepted, a.Stale, a.Highest = w.Time, true, w.Accepted, w.Stale, hi
		}
	}
	return out
}

// deadline is the latest time an operation can have reached the
// resource: its completion, or never when it did not complete.
func deadline(a arrival) int64 {
	if a.Completed {
		return a.Done
	}
	return 1<<63 - 1
}
