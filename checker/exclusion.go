package checker

import (
	"context"
	"fmt"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// Exclusion checks mutual exclusion as the clients saw it.
//
// A holder's interval is where its client believed it held the lock: from
// its acquire ok (Return) to its lease's validity deadline (the ok
// record's Validity; else the acquire's invoke time + TTL; else no end),
// each extend ok adding [extend Return, its Validity], all cut at the
// holder's release invoke and at a FLost record for the token. Leases are
// matched by token, so extends recorded by a watchdog under another
// process still count.
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
type Exclusion struct{}

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
// with op o (acquire or extend ok).
func believedEnd(o *op) (int64, bool) {
	switch {
	case o.Validity != 0:
		return o.Validity, true
	case o.TTL > 0:
		return o.Call + o.TTL, true
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
	leases := map[string]*exLease{} // key+token -> lease
	var order []*exLease
	byProc := map[int][]*exLease{}
	tk := func(key, tok string) string { return key + "\x00" + tok }
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			if o.Type != history.OK {
				continue
			}
			l := &exLease{key: o.Key, token: o.Token, process: o.Process, acq: o, cut: Inf}
			ve, ok := believedEnd(o)
			if !ok {
				d.LeasesWithoutValidity++
				l.noExpiry = true
			}
			l.segs = append(l.segs, [2]int64{o.Return, ve})
			leases[tk(o.Key, o.Token)] = l
			order = append(order, l)
			byProc[o.Process] = append(byProc[o.Process], l)
		case history.FExtend:
			if o.Type != history.OK {
				continue
			}
			if l := leases[tk(o.Key, o.Token)]; l != nil {
				ve, _ := believedEnd(o)
				l.segs = append(l.segs, [2]int64{o.Return, ve})
			}
		case history.FRelease:
			if l := leases[tk(o.Key, o.Token)]; l != nil && o.Call < l.cut {
				l.cut, l.cutBy = o.Call, "release"
			}
		}
	}
	// lost signals: FLost records name the token (or the process's lease)
	for i := range h {
		r := &h[i]
		if r.F != history.FLost || r.IsNemesis() {
			continue
		}
		l := leases[tk(r.Key, r.Token)]
		if l == nil && r.Token == "" {
			l = leaseAt(byProc[r.Process], r.Time)
		}
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
