package checker

import (
	"github.com/lockstorm/lockstorm/lease"

	"context"
	"fmt"
	"sort"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Exclusion checks mutual exclusion as the clients saw it.
//
// A holder's interval is where its client believed it held the lock: from
// its acquire ok (Return) to its lease's validity deadline (the ok
// record's Validity; else the acquire's invoke time + TTL minus the drift
// allowance, as the lock's own validity would be; else no end), each
// extend ok adding [extend Return, its Validity], all cut at the holder's
// release invoke and at a FLost record for the lease. A lease is named by
// its acquire op, not its token (a lock may reuse tokens; see Tokens):
// releases and extends are matched to it as fillTokens does, so extends
// recorded by a watchdog under another process still count, and an
// acquire with unknown outcome whose lease a later extend ok renewed holds
// from that extend on.
//
//   - overlap: two intervals of different processes on the same key
//     intersect (strictly). A correct lock with clients that honour their
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

type exLease struct {
	key      string
	token    string
	process  int
	acq      *op
	segs     [][2]int64 // [start, end] where the client believed it held
	cut      int64      // release invoke or lost signal; Inf if neither
	cutBy    string
	noExpiry bool
}

// end is the last instant of the lease's belief.
func (l *exLease) intervals() [][2]int64 {
	var out [][2]int64
	segs := append([][2]int64(nil), l.segs...)
	sort.Slice(segs, func(i, j int) bool { return segs[i][0] < segs[j][0] })
	for _, s := range segs {
		s[1] = min(s[1], l.cut)
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

// believedEnd is the end of the client's validity for a segment starting
// with op o (acquire or extend ok): its Validity, else its invoke + TTL −
// the drift allowance (saturated), else no end.
func (e Exclusion) believedEnd(o *op) (int64, bool) {
	switch {
	case o.Validity != 0:
		return o.Validity, true
	case o.TTL > 0:
		allow := int64(lease.Allowance(time.Duration(o.TTL), e.Drift, e.DriftFactor))
		return max(satAdd(o.Call, o.TTL-allow), o.Call), true
	}
	return Inf, false
}

// Check finds overlapping holders and writes after validity.
func (e Exclusion) Check(ctx context.Context, h history.History) Result {
	res := Result{Name: e.Name()}
	d := ExclusionDetails{WritesAfterValidity: map[string]int{}}
	var al anomalyList
	os := ops(h)
	fillTokens(os)
	leases := map[int]*exLease{} // acquire index in os -> lease
	var order []*exLease
	byProc := map[int][]*exLease{}
	newLease := func(a *op) *exLease {
		l := &exLease{key: a.Key, token: a.Token, process: a.Process, acq: a, cut: Inf}
		leases[a.Lease] = l
		order = append(order, l)
		byProc[a.Process] = append(byProc[a.Process], l)
		return l
	}
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			if o.Type != history.OK {
				continue
			}
			l := newLease(o)
			ve, ok := e.believedEnd(o)
			if !ok {
				d.LeasesWithoutValidity++
				l.noExpiry = true
			}
			l.segs = append(l.segs, [2]int64{o.Return, ve})
		case history.FExtend:
			if o.Type != history.OK || o.Lease < 0 {
				continue
			}
			l := leases[o.Lease]
			if l == nil && os[o.Lease].Type != history.Fail {
				// an acquire with unknown outcome that took effect: its
				// client holds from the extend on
				l = newLease(&os[o.Lease])
			}
			if l != nil {
				ve, _ := e.believedEnd(o)
				l.segs = append(l.segs, [2]int64{o.Return, ve})
			}
		case history.FRelease:
			if o.Lease < 0 {
				continue
			}
			if l := leases[o.Lease]; l != nil && o.Call < l.cut {
				l.cut, l.cutBy = o.Call, "release"
			}
		}
	}
	// lost signals: FLost records name the lease by token (the process's
	// own lease with that token first), or the process's current lease
	for i := range h {
		r := &h[i]
		if r.F != history.FLost || r.IsNemesis() {
			continue
		}
		l := lostLease(byProc[r.Process], order, r)
		if l != nil && r.Time < l.cut {
			l.cut, l.cutBy = r.Time, "lost"
			d.LeasesEndedByLostSignal++
		}
	}
	d.Leases = len(order)

	// overlaps, per key
	type iv struct {
		l          *exLease
		start, end int64
	}
	byKey := map[string][]iv{}
	for _, l := range order {
		for _, s := range l.intervals() {
			byKey[l.key] = append(byKey[l.key], iv{l, s[0], s[1]})
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ivs := byKey[k]
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].start < ivs[j].start })
		var active []iv
		for _, c := range ivs {
			cur := active[:0]
			for _, a := range active {
				if a.end > c.start {
					cur = append(cur, a)
				}
			}
			active = cur
			for _, a := range active {
				if a.l.process == c.l.process {
					continue
				}
				d.Overlaps++
				ov := min(a.end, c.end) - c.start
				d.MaxOverlapNS = max(d.MaxOverlapNS, ov)
				al.add(Anomaly{Kind: "overlap", Fatal: true, Ops: opIndices(a.l.acq, c.l.acq),
					Text: fmt.Sprintf("key %q: process %d (token %s) held the lock in its own view over [%s, %s] while process %d (token %s) did over [%s, %s]",
						k, a.l.process, a.l.token, fmtTime(a.start), fmtTime(a.end), c.l.process, c.l.token, fmtTime(c.start), fmtTime(c.end))})
			}
			active = append(active, c)
		}
	}

	// writes after validity
	for i := range os {
		w := &os[i]
		if w.F != history.FWrite {
			continue
		}
		d.WritesChecked++
		l := leaseAt(byProc[w.Process], w.Call)
		var why string
		if l == nil {
			why = "without holding any lease"
		} else {
			inside := false
			var last int64
			for _, s := range l.intervals() {
				if s[0] <= w.Call && w.Call <= s[1] {
					inside = true
				}
				if s[0] <= w.Call {
					last = max(last, s[1])
				}
			}
			if inside {
				continue
			}
			switch {
			case l.cutBy == "lost" && w.Call > l.cut:
				why = fmt.Sprintf("after its lease (token %s) was signalled lost at %s", l.token, fmtTime(l.cut))
			default:
				why = fmt.Sprintf("after its lease (token %s) was valid only until %s", l.token, fmtTime(last))
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
	if len(d.WritesAfterValidity) == 0 {
		d.WritesAfterValidity = nil
	}
	res.Valid = al.verdict(Valid)
	res.Anomalies = al.list
	res.Details = d
	return res
}

// lostLease is the lease a FLost record r names: the process's latest
// lease acquired by r's time with r's key and token, else any process's
// (a watchdog may report the loss), else, when r has no token, the
// process's current lease.
func lostLease(own, all []*exLease, r *history.Op) *exLease {
	if r.Token == "" {
		return leaseAt(own, r.Time)
	}
	for _, ls := range [][]*exLease{own, all} {
		var best *exLease
		for _, l := range ls {
			if l.key == r.Key && l.token == r.Token && l.acq.Return <= r.Time && (best == nil || l.acq.Return > best.acq.Return) {
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
func leaseAt(ls []*exLease, t int64) *exLease {
	for i := len(ls) - 1; i >= 0; i-- {
		l := ls[i]
		if l.acq.Return > t {
			continue
		}
		if l.cutBy == "release" && l.cut < t {
			return nil
		}
		return l
	}
	return nil
}
