package checker

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Exclusion checks mutual exclusion as the clients saw it.
//
// A holder's interval is where its client believed it held the lock: its
// lease's Valid stretches (see Lease, and Leases for the extraction):
// from its acquire ok to the validity it computed (else the acquire's
// invoke time + TTL minus the drift allowance, as the lock's own validity
// would be; else no end), each extend ok adding one, all cut at the
// holder's release invoke and at a FLost record for the lease. Leases are
// named by their acquire op, not their token (a lock may reuse tokens;
// see Tokens).
//
//   - overlap: two intervals of different processes on the same key
//     intersect (strictly): ValidOverlaps. A correct lock with clients that honour their
//     validity never does this: the next acquire can only succeed after
//     the server let the previous lease go, which is after the client's
//     validity (validity ≤ invoke + TTL − drift).
//   - write-after-validity: a write invoked by a process after its lease's
//     intervals had all ended (or with no lease at all). Fatal when the
//     resource accepted it (ok); reported only when it was rejected
//     (fencing at work) or its outcome is unknown.
//
// Workloads must record a write's invoke before their last validity
// check, and complete it with fail (not send it) when that check fails;
// otherwise the microseconds between check and record read as a write
// after validity.
type Exclusion struct {
	// Drift and DriftFactor are the clock-drift allowance of the lock
	// (see Lock): a lease with no recorded validity is believed to last
	// until invoke + TTL − (Drift + DriftFactor·TTL), not invoke + TTL, so
	// a takeover the lock checker allows inside the allowance is no
	// overlap. Standard sets them from its Lock checker.
	Drift       time.Duration
	DriftFactor float64
}

// Name is "exclusion".
func (Exclusion) Name() string { return "exclusion" }

// ExclusionDetails summarises an exclusion check.
type ExclusionDetails struct {
	Leases                  int            `json:"leases"`
	Overlaps                int            `json:"overlaps"`
	WritesAfterValidity     map[string]int `json:"writes_after_validity,omitempty"` // by outcome
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
	set := extractLeases(h, os, e.Drift, e.DriftFactor)
	d.Leases = len(set.held)
	for _, l := range set.held {
		if l.NoExpiry {
			d.LeasesWithoutValidity++
		}
		d.LeasesEndedByLostSignal += l.lostSignals
	}
	for _, ov := range ValidOverlaps(set.held) {
		a, c := ov.A, ov.B
		d.Overlaps++
		d.MaxOverlapNS = max(d.MaxOverlapNS, ov.End()-ov.Start())
		al.add(Anomaly{Kind: "overlap", Fatal: true, Ops: opIndices(a.Lease.acq, c.Lease.acq),
			Text: fmt.Sprintf("key %q: process %d (token %s) held the lock in its own view over [%s, %s] while process %d (token %s) did over [%s, %s]",
				ov.Key, a.Lease.Process, a.Lease.Token, fmtTime(a.Start), fmtTime(a.End), c.Lease.Process, c.Lease.Token, fmtTime(c.Start), fmtTime(c.End))})
	}
	for i := range os {
		if w := &os[i]; w.F == history.FWrite {
			d.WritesChecked++
			writeAfterValidity(w, leaseAt(set.byProc[w.Process], w.Call), &d, &al)
		}
	}
	if len(d.WritesAfterValidity) == 0 {
		d.WritesAfterValidity = nil
	}
	return Result{Name: e.Name(), Valid: al.verdict(Valid), Anomalies: al.list, Details: d}
}

// writeAfterValidity reports write w if its process invoked it outside
// every stretch in which it believed its lease l (its current one, nil if
// none) valid.
func writeAfterValidity(w *op, l *Lease, d *ExclusionDetails, al *anomalyList) {
	var why string
	if l == nil {
		why = "without holding any lease"
	} else {
		var last int64
		for _, s := range l.Valid() {
			if s[0] <= w.Call && w.Call <= s[1] {
				return
			}
			if s[0] <= w.Call {
				last = max(last, s[1])
			}
		}
		why = fmt.Sprintf("after its lease (token %s) was valid only until %s", l.Token, fmtTime(last))
		if l.CutBy == "lost" && w.Call > l.Cut {
			why = fmt.Sprintf("after its lease (token %s) was signalled lost at %s", l.Token, fmtTime(l.Cut))
		}
	}
	outcome, kind, fatal := "unknown", "write-after-validity-unknown", false
	switch {
	case w.Type == history.OK:
		outcome, kind, fatal = "accepted", "write-after-validity", true
	case w.Type == history.Fail && IsStale(w.Error):
		outcome, kind = "rejected", "write-after-validity-rejected"
	case w.Type == history.Fail:
		outcome, kind = "failed", "write-after-validity-failed"
	}
	d.WritesAfterValidity[outcome]++
	ops := w.indices()
	if l != nil {
		ops = opIndices(l.acq, w)
	}
	al.add(Anomaly{Kind: kind, Fatal: fatal, Ops: ops,
		Text: fmt.Sprintf("process %d wrote %d at %s %s; the resource %s it", w.Process, w.Value, fmtTime(w.Call), why, outcome)})
}
