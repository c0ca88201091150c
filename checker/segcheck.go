package checker

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// CheckSegmented gives the same verdict, anomaly kinds and op indices as
// Check, but cuts h at quiescent points (see Segments) and checks the
// segments in parallel (at most GOMAXPROCS at once) with the checkers
// that can be split: the lock's porcupine search (*Lock), the counter's
// (*Resource; its lost updates, cron, api and leader checks read the whole
// history in one pass) and Exclusion. The other checkers (Liveness,
// Fencing, ...) and the token, no-acquire and fault-label steps read the
// whole history as in Check.
//
// Merging: a segment's verdicts merge as Check's do (Invalid beats
// Unknown beats Valid); the lock's and the counter's "nonlinearizable"
// anomaly is kept per key from the earliest segment where that key is
// illegal (the whole search stops at that key's first unplaceable op
// too); exclusion anomalies are taken kind by kind in segment order.
// Details are summed; the porcupine searches kept for drawing
// (Linearization) are dropped when there is more than one segment.
//
// The counter's value is carried across a cut: the segment after it
// starts from the value the last section before it left (a synthetic
// acknowledged write), so an increment lost across a cut is caught. The
// history is cut only where that value is exact (see counterCut: one
// section surely last, no section with unknown outcome that may still
// take effect), so the segments' verdict is the whole check's.
func (c *Composite) CheckSegmented(ctx context.Context, h history.History) (res Result) {
	lk := NewLock()
	for _, ch := range c.Checkers {
		if l, ok := ch.(*Lock); ok {
			lk = l
		}
	}
	segs := Segments(h, lk.Drift, lk.DriftFactor)
	if len(segs) < 2 {
		return c.Check(ctx, h)
	}
	start := time.Now()
	res = Result{Name: c.Label}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if refused(&res, h, start) {
		return res
	}
	pool := newPool(runtime.GOMAXPROCS(0))
	res.Results = make([]Result, len(c.Checkers))
	var wg sync.WaitGroup
	for i, ch := range c.Checkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			switch x := ch.(type) {
			case *Lock:
				res.Results[i] = x.checkSegments(ctx, h, segs, pool)
			case *Resource:
				res.Results[i] = x.checkSegments(ctx, h, segs, pool)
			case Exclusion:
				res.Results[i] = x.checkSegments(ctx, h, segs, pool)
			default:
				pool.do(func() { res.Results[i] = safeCheck(ctx, ch, h) })
			}
			res.Results[i].Seconds = time.Since(t0).Seconds()
		}()
	}
	wg.Wait()
	c.finish(&res, h)
	return res
}

// pool bounds how many checks run at once.
type pool chan struct{}

func newPool(n int) pool { return make(pool, max(n, 1)) }

// do runs f when a slot is free and waits for it.
func (p pool) do(f func()) {
	p <- struct{}{}
	defer func() { <-p }()
	f()
}

// each runs f(i) for every segment, at most len(p) at once, and waits.
func (p pool) each(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.do(func() { f(i) })
		}()
	}
	wg.Wait()
}

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

// maxExplainOps is the most porcupine ops an illegal key may have in the
// whole history for CheckSegmented and CheckFile to explain it on the
// whole history, as Check does (same ops named): the verbose search that
// explains keeps up to ops²/2 indices (a key of 33k counter sections took
// 6 GB). Beyond it, the earliest illegal segment's explanation stands:
// the same kind, and maybe other ops.
const maxExplainOps = 5000

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

// merge combines the segments' lock checks (see CheckSegmented); explain
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

// checkSegments is Check over the segments.
func (l *Lock) checkSegments(ctx context.Context, h history.History, segs []Segment, p pool) Result {
	start := time.Now()
	ps := make([]lockPiece, len(segs))
	seams := make([]seam, len(segs))
	segOps := func(h history.History) []op {
		os := ops(h)
		fillTokens(os)
		return os
	}
	p.each(len(segs), func(i int) {
		if i > 0 {
			seams[i] = seamOf(&h[segs[i].Start])
		}
		ps[i] = l.pieceAt(ctx, segOps(segs[i].History(h)), seams[i])
	})
	l.resolveSeams(ctx, ps, seams, func(k, j int) int { return segs[j].End - segs[k].Start }, func(k, j int) []op {
		var moved history.History
		for m := k; m <= j; m++ {
			for _, i := range segs[m].Moved {
				if i < segs[k].Start {
					moved = append(moved, h[i])
				}
			}
		}
		slices.SortFunc(moved, func(a, b history.Op) int { return cmp.Compare(a.Index, b.Index) })
		return segOps(joinRecords(moved, h[segs[k].Start:segs[j].End], j == len(segs)-1))
	})
	return l.merge(ps, start, func(byKey map[string]keyAnomaly) {
		if len(h) <= maxExplainWhole {
			l.explainWhole(ctx, h, byKey)
		}
	})
}

// counterPiece is one segment's counter check, and its sections per key.
type counterPiece struct {
	valid Validity
	err   string
	byKey map[string]Anomaly
	ops   map[string]int
}

// counterPiece runs the counter search on one segment's sections.
func (r *Resource) counterPiece(ctx context.Context, secs []*sectionInput) counterPiece {
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
	switch porcupine.CheckOperationsTimeout(model, pops, timeout) {
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

// explainBudget bounds the search that re-explains an illegal key on the
// whole history (see maxExplainWhole); when it runs out, the segment's
// explanation stands.
const explainBudget = 10 * time.Second

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

// checkSegments is Check with the counter's search run per segment.
func (r *Resource) checkSegments(ctx context.Context, h history.History, segs []Segment, p pool) Result {
	start := time.Now()
	res := Result{Name: r.Name(), Valid: Valid}
	var d ResourceDetails
	var al anomalyList
	os := ops(h)
	secs := counterSections(os)
	d.Sections = len(secs)
	if len(secs) > 0 {
		parts := splitSections(secs, h, segs)
		ps := make([]counterPiece, len(parts))
		p.each(len(parts), func(i int) { ps[i] = r.counterPiece(ctx, parts[i]) })
		mergeCounter(ps, &res, &al, func(byKey map[string]keyAnomaly) {
			if len(h) <= maxExplainWhole {
				r.explainSections(ctx, secs, byKey)
			}
		})
	}
	r.checkRest(os, len(secs) > 0, &al, &d)
	r.finish(&res, &al, d, start)
	return res
}

// splitSections assigns the sections to the segments by their first
// record, and starts each segment after the first with its carry: a
// synthetic section per key that sets the counter to the exact value the
// sections before the cut left (see counterCut).
func splitSections(secs []*sectionInput, h history.History, segs []Segment) [][]*sectionInput {
	parts := make([][]*sectionInput, len(segs))
	for i := range segs {
		parts[i] = slices.Clone(segs[i].carry)
	}
	seg := func(idx int64) int {
		return sort.Search(len(segs), func(i int) bool { return int64(segs[i].End) > idx-h[0].Index })
	}
	for _, s := range secs {
		i := seg(s.ops[0])
		parts[i] = append(parts[i], s)
	}
	return parts
}

// checkSegments is Check over the segments: every lease and write lies in
// one segment (see Segments). Overlaps come first, then the writes, each
// in segment order, as Check lists them.
func (e Exclusion) checkSegments(ctx context.Context, h history.History, segs []Segment, p pool) Result {
	rs := make([]Result, len(segs))
	p.each(len(segs), func(i int) { rs[i] = e.Check(ctx, segs[i].History(h)) })
	return e.merge(rs)
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
