package checker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Exclusion checks mutual exclusion as the clients saw it, over each
// lease's Valid stretches (see Lease): where its holder believed it held
// the lock.
//
//   - overlap: stretches of different processes on one key intersect
//     (ValidOverlaps).
//   - write-after-validity: a write invoked outside its process's
//     stretches (or with no lease). Accepted, LateWriteFatal decides;
//     rejected or unknown, only reported.
type Exclusion struct {
	// Drift and DriftFactor are the lock's drift allowance (see Lock),
	// subtracted from invoke + TTL for a lease with no recorded validity.
	Drift       time.Duration
	DriftFactor float64
	// Fenced says the resource rejects stale tokens (the run's
	// --fencing), for LateWriteFatal.
	Fenced bool
	// Log is the resource's own log (nil: none), for LateWriteFatal.
	Log *ServerLog
}

// Name is "exclusion".
func (Exclusion) Name() string { return "exclusion" }

// ExclusionDetails summarises an exclusion check.
type ExclusionDetails struct {
	Leases   int `json:"leases"`
	Overlaps int `json:"overlaps"`
	// WritesAfterValidity counts writes invoked outside their lease by
	// outcome: "accepted", "accepted-in-order", "rejected", "failed",
	// "unknown".
	WritesAfterValidity     map[string]int `json:"writes_after_validity,omitempty"`
	WritesChecked           int            `json:"writes_checked"`
	MaxOverlapNS            int64          `json:"max_overlap_ns"`
	LeasesWithoutValidity   int            `json:"leases_without_validity"`
	LeasesEndedByLostSignal int            `json:"leases_ended_by_lost_signal"`
}

// Check finds overlapping holders and writes after validity.
func (e Exclusion) Check(ctx context.Context, h history.History) Result {
	os := ops(h)
	fillTokens(os)
	return e.checkOps(h, os)
}

// checkOps is Check of h given its ops (fillTokens applied; read only).
func (e Exclusion) checkOps(h history.History, os []op) Result {
	d := ExclusionDetails{WritesAfterValidity: map[string]int{}}
	var al anomalyList
	set := leasesOf(h, e.Drift, e.DriftFactor)
	d.Leases = len(set.held)
	for _, l := range set.held {
		if l.NoExpiry {
			d.LeasesWithoutValidity++
		}
		d.LeasesEndedByLostSignal += l.LostSignals
	}
	for _, ov := range ValidOverlaps(set.held) {
		a, c := ov.A, ov.B
		d.Overlaps++
		d.MaxOverlapNS = max(d.MaxOverlapNS, ov.End()-ov.Start())
		al.add(Anomaly{Kind: "overlap", Fatal: true, Ops: sortedIndices(a.Lease.AcquireOps(), c.Lease.AcquireOps()),
			Text: fmt.Sprintf("key %q: process %d (token %s) held the lock in its own view over [%s, %s] while process %d (token %s) did over [%s, %s]",
				ov.Key, a.Lease.Process, a.Lease.Token, fmtTime(a.Start), fmtTime(a.End), c.Lease.Process, c.Lease.Token, fmtTime(c.Start), fmtTime(c.End))})
	}
	var acc acceptedFences // built on the first late write accepted under fencing
	for i := range os {
		if w := &os[i]; w.F == history.FWrite {
			d.WritesChecked++
			l := lease.At(set.t.Of(w.Process), w.Call)
			why, late := lateWhy(w, l)
			if !late {
				continue
			}
			fatal := true
			if w.Type == history.OK && e.Fenced && w.Fence != 0 {
				if acc == nil {
					acc = acceptedFencesOf(os)
				}
				fatal = LateWriteFatal(e.Fenced, w.Fence, newestBefore(w, acc, e.Log))
			}
			writeAfterValidity(w, l, why, fatal, &d, &al)
		}
	}
	if len(d.WritesAfterValidity) == 0 {
		d.WritesAfterValidity = nil
	}
	return Result{Name: e.Name(), Valid: al.verdict(Valid), Anomalies: al.list, Details: d}
}

// lateWhy says why write w lies outside every Valid stretch of its
// process's current lease l (nil if none); late is false if inside one.
func lateWhy(w *op, l *Lease) (why string, late bool) {
	if l == nil {
		return "without holding any lease", true
	}
	var last int64
	for _, s := range l.Valid() {
		if s[0] <= w.Call && w.Call <= s[1] {
			return "", false
		}
		if s[0] <= w.Call {
			last = max(last, s[1])
		}
	}
	if l.CutBy == "lost" && w.Call > l.Cut {
		return fmt.Sprintf("after its lease (token %s) was signalled lost at %s", l.Token, fmtTime(l.Cut)), true
	}
	return fmt.Sprintf("after its lease (token %s) was valid only until %s", l.Token, fmtTime(last)), true
}

// writeAfterValidity reports write w, invoked outside its lease l (nil:
// none) for reason why; acceptedFatal is LateWriteFatal's answer.
func writeAfterValidity(w *op, l *Lease, why string, acceptedFatal bool, d *ExclusionDetails, al *anomalyList) {
	outcome, kind, fatal := "unknown", "write-after-validity-unknown", false
	switch {
	case w.Type == history.OK && acceptedFatal:
		outcome, kind, fatal = "accepted", KindLateWrite, true
	case w.Type == history.OK:
		outcome, kind = "accepted-in-order", KindLateWriteInOrder
	case w.Type == history.Fail && IsStale(w.Error):
		outcome, kind = "rejected", KindLateWriteRejected
	case w.Type == history.Fail:
		outcome, kind = "failed", "write-after-validity-failed"
	}
	d.WritesAfterValidity[outcome]++
	ops := w.indices()
	if l != nil {
		ops = sortedIndices(l.AcquireOps(), ops)
	}
	text := fmt.Sprintf("process %d wrote %d at %s %s; the resource %s it", w.Process, w.Value, fmtTime(w.Call), why, outcome)
	if kind == KindLateWriteInOrder {
		text = fmt.Sprintf("process %d wrote %d (token %d) at %s %s; the fencing resource accepted it in token order, before any newer token reached it: harmless",
			w.Process, w.Value, w.Fence, fmtTime(w.Call), why)
	}
	al.add(Anomaly{Kind: kind, Fatal: fatal, Ops: ops, Text: text})
}

// checkSegment is the exclusion check of one segment.
func (e Exclusion) checkSegment(ctx context.Context, in *segmentInput) segmentPart {
	return e.checkOps(in.h, in.os)
}

func (e Exclusion) uncheckedSegment(v Validity, why string, ov *overflow) segmentPart {
	return Result{Valid: v, Error: why, Details: ExclusionDetails{}}
}

func (e Exclusion) foldOverflow(ov *overflow, part segmentPart) {}

// mergeSegments combines the segments' checks: overlaps first, then
// writes after validity, in segment order.
func (e Exclusion) mergeSegments(st *stream, parts []segmentPart) Result {
	d := ExclusionDetails{WritesAfterValidity: map[string]int{}}
	var al anomalyList
	for _, overlaps := range []bool{true, false} {
		for _, p := range parts {
			for _, a := range p.(Result).Anomalies {
				if (a.Kind == "overlap") == overlaps {
					al.add(a)
				}
			}
		}
	}
	res := Result{Name: e.Name(), Valid: al.verdict(Valid), Anomalies: al.list}
	for _, p := range parts {
		r := p.(Result)
		sd := r.Details.(ExclusionDetails)
		d.Leases += sd.Leases
		d.Overlaps += sd.Overlaps
		d.WritesChecked += sd.WritesChecked
		d.MaxOverlapNS = max(d.MaxOverlapNS, sd.MaxOverlapNS)
		d.LeasesWithoutValidity += sd.LeasesWithoutValidity
		d.LeasesEndedByLostSignal += sd.LeasesEndedByLostSignal
		for k, n := range sd.WritesAfterValidity {
			d.WritesAfterValidity[k] += n
		}
		if r.Valid == Unknown && res.Valid == Valid {
			res.Valid, res.Error = Unknown, r.Error // a segment not checked
		}
	}
	if len(d.WritesAfterValidity) == 0 {
		d.WritesAfterValidity = nil
	}
	res.Details = d
	return res
}

// sortedIndices are the record indices of ls, in order.
func sortedIndices(ls ...[]int64) []int64 { s := slices.Concat(ls...); slices.Sort(s); return s }
