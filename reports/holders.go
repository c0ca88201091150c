package reports

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/resource"
)

// hold is one lease (the embedded checker.Lease) as its holder believed
// it, as holders.png draws it: from Start (the acquire's ok, or the
// extend ok that renewed an acquire with unknown outcome) to End, the
// first release invoke naming it, the holder learning the lease was lost,
// or (when neither happened) the holder process's last record. Times are
// ns.
type hold struct {
	*checker.Lease
	Start, End int64
	// Validity is the lease's end as the client computed it
	// (checker.Lease.Validity): the invoke time plus the TTL less the
	// lock checker's drift allowance when the client recorded none; 0
	// when the lease never expires (no TTL).
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

// holds extracts every lease from h as the checkers see it under opt
// (checker.Leases: the validity drawn is the client's, else the lock
// checker's invoke + TTL − drift allowance), ordered by Start.
func holds(h history.History, opt lease.Options) []hold {
	var out []hold
	for _, l := range checker.Leases(h, opt.Drift, opt.DriftFactor) {
		end, ended := l.HeldUntil()
		out = append(out, hold{Lease: l, Start: l.Start(), End: end, Validity: l.Validity(), Ended: ended})
	}
	slices.SortStableFunc(out, func(a, b hold) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// overlaps finds every pair of leases of different processes on the same
// key whose belief intervals intersect (checker.HeldOverlaps), ordered by
// start. hs must come from holds.
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

// lostPairs takes the lost increments of h from v's "lost-update"
// anomalies that name two writes of h (at maps the history's record
// indices to h's; nil: h is the whole history); the checker's summary
// anomaly names no such pair.
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
// held at once in h: the red of holders.png. It counts beliefs (acquire
// ok to release), not validity, so a paused holder that outlives its
// lease overlaps its successor even when a fencing resource keeps that
// harmless (holders.png's title counts the overlaps within validity).
func HeldOverlaps(h history.History) int { return len(overlaps(holds(h, lease.Options{}))) }

// detail is what the pictures drawn record by record share, derived once
// per report from the kept history h (the whole history, or the
// records read around its anomalies): its operations, rows, fault
// windows (h's indices), leases and their overlaps, resource operations
// with their arrivals, and lost increments.
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

// detailOf derives h's detail from its rows sm, fault windows ws, the
// resource log's entries of h (writes), its lost increments and the
// run's lease options.
func detailOf(h history.History, sm slotMap, ws []checker.Window, writes []resource.Write, lost []lostPair, opt lease.Options) *detail {
	hs, sp := holds(h, opt), clientOps(h)
	ls := make([]*checker.Lease, len(hs))
	for i := range hs {
		ls[i] = hs[i].Lease
	}
	return &detail{h: h, sp: sp, sm: sm, ws: ws, hs: hs, ovs: overlaps(hs), within: len(checker.ValidOverlaps(ls)),
		marks: arrivals(h, sp, writes), lost: lost}
}
