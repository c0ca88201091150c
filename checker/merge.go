package checker

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// keyAnomaly is a per-key anomaly and the segment it came from.
type keyAnomaly struct {
	seg int
	a   Anomaly
}

// earliestPerKey keeps, per key, the anomaly of the earliest segment.
func earliestPerKey(m map[string]keyAnomaly, seg int, key string, a Anomaly) {
	if cur, ok := m[key]; !ok || seg < cur.seg {
		m[key] = keyAnomaly{seg, a}
	}
}

// addByKey adds the per-key anomalies in key order, as the whole checks do.
func addByKey(m map[string]keyAnomaly, al *anomalyList) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		al.add(m[k].a)
	}
	return keys
}

// lockPiece is one segment's lock check, and its porcupine ops per key.
type lockPiece struct {
	r   Result
	ops map[string]int
	// ambiguous marks an Unknown piece whose seam resolveSeams settles.
	ambiguous bool
}

// explainBounded calls explain on the keys of byKey with at most
// maxExplainOps ops (counts) and keeps the others' anomalies.
func explainBounded(byKey map[string]keyAnomaly, counts map[string]int, explain func(map[string]keyAnomaly)) {
	sub := map[string]keyAnomaly{}
	for k, a := range byKey {
		if counts[k] <= maxExplainOps {
			sub[k] = a
		}
	}
	if len(sub) == 0 {
		return
	}
	explain(sub)
	for k, a := range sub {
		byKey[k] = a
	}
}

// merge combines the segments' lock checks (see CheckFile); explain
// re-explains the illegal keys on the whole history (see explainBounded).
func (l *Lock) merge(ps []lockPiece, start time.Time, explain func(map[string]keyAnomaly)) (res Result) {
	res.Name = l.Name()
	var d LockDetails
	keys := map[string]int{} // porcupine ops per key
	byKey := map[string]keyAnomaly{}
	valid, errMsg := Valid, ""
	for i, p := range ps {
		sd := p.r.Details.(LockDetails)
		for k, n := range p.ops {
			keys[k] += n
		}
		d.Ops += sd.Ops
		d.Acquire.OK += sd.Acquire.OK
		d.Acquire.Fail += sd.Acquire.Fail
		d.Acquire.Info += sd.Acquire.Info
		d.Acquire.InfoKept += sd.Acquire.InfoKept
		d.BoundedInfo += sd.BoundedInfo
		valid = Merge(valid, p.r.Valid)
		if p.r.Valid == Unknown && errMsg == "" {
			errMsg = p.r.Error
		}
		for j, k := range sd.IllegalKeys {
			if j < len(p.r.Anomalies) {
				earliestPerKey(byKey, i, k, p.r.Anomalies[j])
			}
		}
		if len(ps) == 1 {
			d.Linearization = sd.Linearization
		}
	}
	d.Keys = len(keys)
	defer func() { d.ElapsedMS = time.Since(start).Milliseconds(); res.Details = d }()
	if d.Acquire.OK+d.Acquire.InfoKept == 0 {
		res.Valid, res.Error = Unknown, "no acquire succeeded: nothing to check"
		return res
	}
	if len(byKey) > 0 {
		explainBounded(byKey, keys, explain)
	}
	var al anomalyList
	d.IllegalKeys = addByKey(byKey, &al)
	res.Anomalies = al.list
	res.Valid = valid
	if valid == Unknown {
		res.Error = errMsg
	}
	return res
}

// counterPiece is one segment's counter check, and its sections per key.
type counterPiece struct {
	valid Validity
	err   string
	byKey map[string]Anomaly
	ops   map[string]int
	// lin is the search, kept (keep) for drawing porcupine-counter.html
	// when the history is this one segment
	lin *Linearization
}

// counterPiece runs the counter search on one segment's sections; keep
// keeps the search for drawing (the first segment's: see
// ResourceDetails.Linearization).
func (r *Resource) counterPiece(ctx context.Context, secs []*sectionInput, keep bool) counterPiece {
	out := counterPiece{valid: Valid, ops: map[string]int{}}
	pops := sectionOps(secs)
	if len(pops) == 0 {
		return out
	}
	for _, s := range secs {
		if !s.carried {
			out.ops[s.key]++
		}
	}
	model := counterModel(true)
	timeout := searchTimeout(ctx, r.Timeout)
	verdict := porcupine.Unknown
	if keep {
		verdict, out.lin = search(model, pops, timeout, nil)
	} else {
		verdict = porcupine.CheckOperationsTimeout(model, pops, timeout)
	}
	switch verdict {
	case porcupine.Unknown:
		out.valid, out.err = Unknown, fmt.Sprintf("porcupine timed out after %s on the counter", timeout)
	case porcupine.Illegal:
		out.valid, out.byKey = Invalid, map[string]Anomaly{}
		for _, part := range partitionByKey(pops) {
			if a, ok := explainCounter(model, part, searchTimeout(ctx, r.Timeout)); ok {
				out.byKey[part[0].Input.(*sectionInput).key] = a
			}
		}
	}
	return out
}

// mergeCounter adds the segments' counter checks to res and al; explain
// re-explains the illegal keys on the whole history's sections (see
// explainBounded).
func mergeCounter(ps []counterPiece, res *Result, al *anomalyList, explain func(map[string]keyAnomaly)) {
	byKey := map[string]keyAnomaly{}
	counts := map[string]int{}
	for i, p := range ps {
		for k, n := range p.ops {
			counts[k] += n
		}
		res.Valid = Merge(res.Valid, p.valid)
		if p.valid == Unknown {
			res.Error = p.err
		}
		for k, a := range p.byKey {
			earliestPerKey(byKey, i, k, a)
		}
	}
	if len(byKey) > 0 {
		explainBounded(byKey, counts, explain)
	}
	addByKey(byKey, al)
}

// explainSections re-explains the illegal keys of byKey on secs.
func (r *Resource) explainSections(ctx context.Context, secs []*sectionInput, byKey map[string]keyAnomaly) {
	for _, part := range partitionByKey(sectionOps(secs)) {
		k := part[0].Input.(*sectionInput).key
		if _, ok := byKey[k]; ok {
			if a, ok := explainCounter(counterModel(true), part, min(searchTimeout(ctx, r.Timeout), explainBudget)); ok {
				byKey[k] = keyAnomaly{byKey[k].seg, a}
			}
		}
	}
}

// merge combines the segments' exclusion checks.
func (e Exclusion) merge(rs []Result) Result {
	d := ExclusionDetails{WritesAfterValidity: map[string]int{}}
	var al anomalyList
	for _, overlaps := range []bool{true, false} {
		for _, r := range rs {
			for _, a := range r.Anomalies {
				if (a.Kind == "overlap") == overlaps {
					al.add(a)
				}
			}
		}
	}
	for _, r := range rs {
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
	}
	if len(d.WritesAfterValidity) == 0 {
		d.WritesAfterValidity = nil
	}
	res := Result{Name: e.Name(), Valid: al.verdict(Valid), Anomalies: al.list, Details: d}
	for _, r := range rs {
		if r.Valid == Unknown && res.Valid == Valid {
			res.Valid, res.Error = Unknown, r.Error // a segment not checked
		}
	}
	return res
}

// explainWhole re-explains the illegal keys of byKey on the whole
// history's search of that key, so that the anomaly names the ops the
// whole check names: which op porcupine leaves unplaced depends on the
// ops around it (an op with unknown outcome from an earlier segment may
// still be placed late). It costs a whole-key search, but only for a key
// already proved illegal.
func (l *Lock) explainWhole(ctx context.Context, h history.History, byKey map[string]keyAnomaly) {
	s := l.lockOps(h)
	model := lockModel(true, s.tokens, 0)
	for _, part := range partitionByKey(s.ops) {
		k := part[0].Input.(*lockInput).key
		if _, ok := byKey[k]; !ok {
			continue
		}
		if a, illegal := explainLock(model, part, min(searchTimeout(ctx, l.Timeout), explainBudget), s.tokens); illegal {
			byKey[k] = keyAnomaly{byKey[k].seg, a}
		}
	}
}
