package checker

import (
	"context"
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// keyedSearch is a porcupine check partitioned by key (the lock's or the
// counter's): its verdict, the reason of an Unknown one, each illegal
// key's explanation, and the search kept for drawing (nil unless kept).
type keyedSearch struct {
	valid Validity
	err   string
	byKey map[string]Anomaly
	lin   *Linearization
}

// searchKeys runs porcupine on pops (model partitioned by key) within
// timeout (see searchTimeout); keep keeps the search for drawing (see
// search). Each illegal key is explained by explain, given its ops and
// a budget; what names the check in a timeout's reason.
func searchKeys(ctx context.Context, model porcupine.Model, pops []porcupine.Operation, timeout time.Duration, keep bool,
	notes []porcupine.Annotation, what string, explain func(part []porcupine.Operation, budget time.Duration) (Anomaly, bool)) keyedSearch {
	budget := searchTimeout(ctx, timeout)
	var verdict porcupine.CheckResult
	out := keyedSearch{valid: Valid}
	if keep {
		verdict, out.lin = search(model, pops, budget, notes)
	} else {
		verdict = porcupine.CheckOperationsTimeout(model, pops, budget)
	}
	switch verdict {
	case porcupine.Unknown:
		out.valid, out.err = Unknown, fmt.Sprintf("porcupine timed out after %s%s", budget, what)
	case porcupine.Illegal:
		out.valid, out.byKey = Invalid, map[string]Anomaly{}
		for _, part := range partitionByKey(pops) {
			if a, ok := explain(part, searchTimeout(ctx, timeout)); ok {
				out.byKey[inputKey(part[0].Input)] = a
			}
		}
	}
	return out
}

// explainKeys explains again the illegal keys of byKey on pops, the
// whole history's, so that the anomaly names the ops the whole check
// names: which op porcupine leaves unplaced depends on the ops around it
// (an op with unknown outcome from an earlier segment may still be
// placed late). It costs a whole-key search (at most explainBudget), but
// only for a key already proved illegal.
func explainKeys(ctx context.Context, pops []porcupine.Operation, timeout time.Duration, byKey map[string]keyAnomaly,
	explain func(part []porcupine.Operation, budget time.Duration) (Anomaly, bool)) {
	for _, part := range partitionByKey(pops) {
		k := inputKey(part[0].Input)
		if _, ok := byKey[k]; !ok {
			continue
		}
		if a, ok := explain(part, min(searchTimeout(ctx, timeout), explainBudget)); ok {
			byKey[k] = keyAnomaly{byKey[k].seg, a}
		}
	}
}

// piece is one segment's porcupine check, the lock's or the counter's,
// and its porcupine ops per key.
type piece struct {
	keyedSearch
	ops map[string]int
	d   LockDetails // the lock's counts
	// ambiguous marks an Unknown lock piece whose seam resolveSeams
	// settles.
	ambiguous bool
}

// keyAnomaly is a per-key anomaly and the segment it came from.
type keyAnomaly struct {
	seg int
	a   Anomaly
}

// mergePieces combines the segments' pieces: the verdict (with the first
// Unknown's reason), the ops per key, and per illegal key the anomaly of
// the earliest segment, explained again by explain on the whole history
// when the key has at most maxExplainOps ops.
func mergePieces(ps []piece, explain func(map[string]keyAnomaly)) (valid Validity, err string, byKey map[string]keyAnomaly, counts map[string]int) {
	valid, byKey, counts = Valid, map[string]keyAnomaly{}, map[string]int{}
	for i, p := range ps {
		for k, n := range p.ops {
			counts[k] += n
		}
		valid = Merge(valid, p.valid)
		if p.valid == Unknown && err == "" {
			err = p.err
		}
		for k, a := range p.byKey {
			if cur, ok := byKey[k]; !ok || i < cur.seg {
				byKey[k] = keyAnomaly{i, a}
			}
		}
	}
	sub := map[string]keyAnomaly{}
	for k, a := range byKey {
		if counts[k] <= maxExplainOps {
			sub[k] = a
		}
	}
	if len(sub) > 0 && explain != nil {
		explain(sub)
		for k, a := range sub {
			byKey[k] = a
		}
	}
	return valid, err, byKey, counts
}

// addByKey adds the per-key anomalies in key order, as the whole checks do.
func addByKey(m map[string]keyAnomaly, al *anomalyList) []string {
	keys := sortedKeys(m)
	for _, k := range keys {
		al.add(m[k].a)
	}
	return keys
}

// merge combines the segments' lock checks (see CheckSource); explain
// explains the illegal keys again on the whole history (see
// mergePieces).
func (l *Lock) merge(ps []piece, start time.Time, explain func(map[string]keyAnomaly)) (res Result) {
	res.Name = l.Name()
	var d LockDetails
	for _, p := range ps {
		d.Ops += p.d.Ops
		d.Acquire.OK += p.d.Acquire.OK
		d.Acquire.Fail += p.d.Acquire.Fail
		d.Acquire.Info += p.d.Acquire.Info
		d.Acquire.InfoKept += p.d.Acquire.InfoKept
		d.BoundedInfo += p.d.BoundedInfo
	}
	if len(ps) == 1 {
		d.Linearization = ps[0].lin
	}
	defer func() { d.ElapsedMS = time.Since(start).Milliseconds(); res.Details = d }()
	valid, err, byKey, counts := mergePieces(ps, explain)
	d.Keys = len(counts)
	if d.Acquire.OK+d.Acquire.InfoKept == 0 {
		res.Valid, res.Error = Unknown, "no acquire succeeded: nothing to check"
		return res
	}
	var al anomalyList
	d.IllegalKeys = addByKey(byKey, &al)
	res.Valid, res.Anomalies = valid, al.list
	if valid == Unknown {
		res.Error = err
	}
	return res
}

// explainWhole explains the illegal keys of byKey again on the whole
// history h (see explainKeys).
func (l *Lock) explainWhole(ctx context.Context, h history.History, byKey map[string]keyAnomaly) {
	s := l.lockOps(h)
	model := lockModel(s.tokens, 0)
	explainKeys(ctx, s.ops, l.Timeout, byKey, func(part []porcupine.Operation, budget time.Duration) (Anomaly, bool) {
		return explainLock(model, part, budget, s.tokens)
	})
}

// explainWhole explains the illegal keys of byKey again on the whole
// history h (see explainKeys).
func (r *Resource) explainWhole(ctx context.Context, h history.History, byKey map[string]keyAnomaly) {
	explainKeys(ctx, sectionOps(counterSections(ops(h))), r.Timeout, byKey, explainCounter)
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
