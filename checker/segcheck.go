package checker

import (
	"context"
	"fmt"
	"runtime"
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
// acknowledged write), so an increment lost across a cut is caught. When
// that value is not determined (the last section overlaps another, ends
// with an unknown outcome, or an earlier section with unknown outcome may
// still take effect), the segment starts from "any value", which is more
// permissive than the whole check.
func (c *Composite) CheckSegmented(ctx context.Context, h history.History) (res Result) {
	lk := NewLock()
	for _, ch := range c.Checkers {
		if l, ok := ch.(*Lock); ok {
			lk = l
		}
	}
	cuts := Segments(h, lk.Drift, lk.DriftFactor)
	if len(cuts) == 0 {
		return c.Check(ctx, h)
	}
	start := time.Now()
	res = Result{Name: c.Label}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if err := Validate(h); err != nil {
		res.Valid, res.Error = Unknown, err.Error()
		res.Results = []Result{{Name: "validate", Valid: Invalid, Error: err.Error(), Seconds: time.Since(start).Seconds()}}
		return res
	}
	bounds := make([][2]int, 0, len(cuts)+1)
	prev := 0
	for _, c := range append(cuts, len(h)) {
		bounds = append(bounds, [2]int{prev, c})
		prev = c
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
				res.Results[i] = x.checkSegments(ctx, h, bounds, pool)
			case *Resource:
				res.Results[i] = x.checkSegments(ctx, h, bounds, pool)
			case Exclusion:
				res.Results[i] = x.checkSegments(ctx, h, bounds, pool)
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

// checkSegments is Check over the segments h[b[0]:b[1]].
func (l *Lock) checkSegments(ctx context.Context, h history.History, bounds [][2]int, p pool) (res Result) {
	start := time.Now()
	res.Name = l.Name()
	var (
		mu     sync.Mutex
		d      LockDetails
		keys   = map[string]bool{}
		byKey  = map[string]keyAnomaly{}
		valid  = Valid
		errMsg string
	)
	p.each(len(bounds), func(i int) {
		s := l.lockOps(h[bounds[i][0]:bounds[i][1]])
		segKeys := map[string]bool{}
		for _, o := range s.ops {
			segKeys[o.Input.(*lockInput).key] = true
		}
		var r Result
		if s.d.Acquire.OK+s.d.Acquire.InfoKept > 0 {
			r = l.checkSearch(ctx, s, time.Now())
		} else {
			r = Result{Valid: Valid, Details: s.d}
		}
		sd := r.Details.(LockDetails)
		mu.Lock()
		defer mu.Unlock()
		for k := range segKeys {
			keys[k] = true
		}
		d.Ops += sd.Ops
		d.Acquire.OK += sd.Acquire.OK
		d.Acquire.Fail += sd.Acquire.Fail
		d.Acquire.Info += sd.Acquire.Info
		d.Acquire.InfoKept += sd.Acquire.InfoKept
		d.BoundedInfo += sd.BoundedInfo
		valid = Merge(valid, r.Valid)
		if r.Valid == Unknown && errMsg == "" {
			errMsg = r.Error
		}
		for j, k := range sd.IllegalKeys {
			if j < len(r.Anomalies) {
				earliestPerKey(byKey, i, k, r.Anomalies[j])
			}
		}
		if len(bounds) == 1 {
			d.Linearization = sd.Linearization
		}
	})
	d.Keys = len(keys)
	defer func() { d.ElapsedMS = time.Since(start).Milliseconds(); res.Details = d }()
	if d.Acquire.OK+d.Acquire.InfoKept == 0 {
		res.Valid, res.Error = Unknown, "no acquire succeeded: nothing to check"
		return res
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

// checkSegments is Check with the counter's search run per segment.
func (r *Resource) checkSegments(ctx context.Context, h history.History, bounds [][2]int, p pool) Result {
	start := time.Now()
	res := Result{Name: r.Name(), Valid: Valid}
	var d ResourceDetails
	var al anomalyList
	os := ops(h)
	secs := counterSections(os)
	d.Sections = len(secs)
	if len(secs) > 0 {
		parts := splitSections(secs, h, bounds)
		var (
			mu    sync.Mutex
			byKey = map[string]keyAnomaly{}
		)
		p.each(len(parts), func(i int) {
			pops := sectionOps(parts[i])
			if len(pops) == 0 {
				return
			}
			model := counterModel(true)
			timeout := searchTimeout(ctx, r.Timeout)
			out := porcupine.CheckOperationsTimeout(model, pops, timeout)
			var found []keyAnomaly
			var keys []string
			switch out {
			case porcupine.Unknown:
				mu.Lock()
				res.Valid = Merge(res.Valid, Unknown)
				res.Error = fmt.Sprintf("porcupine timed out after %s on the counter", timeout)
				mu.Unlock()
				return
			case porcupine.Illegal:
				for _, part := range partitionByKey(pops) {
					if a, ok := explainCounter(model, part, searchTimeout(ctx, r.Timeout)); ok {
						found = append(found, keyAnomaly{i, a})
						keys = append(keys, part[0].Input.(*sectionInput).key)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if out == porcupine.Illegal {
				res.Valid = Merge(res.Valid, Invalid)
			}
			for j, ka := range found {
				earliestPerKey(byKey, i, keys[j], ka.a)
			}
		})
		addByKey(byKey, &al)
	}
	r.checkRest(os, len(secs) > 0, &al, &d)
	r.finish(&res, &al, d, start)
	return res
}

// splitSections assigns the sections to the segments by their first
// record, and starts each segment after the first with a synthetic
// acknowledged write, per key, of the value the sections before it left
// when that value is determined (see CheckSegmented).
func splitSections(secs []*sectionInput, h history.History, bounds [][2]int) [][]*sectionInput {
	parts := make([][]*sectionInput, len(bounds))
	seg := func(idx int64) int {
		return sort.Search(len(bounds), func(i int) bool { return int64(bounds[i][1]) > idx-h[0].Index })
	}
	for _, s := range secs {
		i := seg(s.ops[0])
		parts[i] = append(parts[i], s)
	}
	lastOf := map[string]*lastSection{}
	infoReads := map[string]map[int64]bool{} // key -> reads of info writes (blind: in blindInfo)
	blindInfo := map[string]bool{}
	for i := range parts {
		if i > 0 {
			var carry []*sectionInput
			t0 := h[bounds[i][0]].Time - 1
			keys := make([]string, 0, len(lastOf))
			for k := range lastOf {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if v, ok := lastOf[k].value(infoReads[k], blindInfo[k]); ok {
					carry = append(carry, &sectionInput{key: k, hasW: true, write: v, out: outOK, process: -1, call: t0, ret: t0})
				}
			}
			parts[i] = append(carry, parts[i]...)
		}
		for _, s := range parts[i] {
			if s.process == -1 && s.ops == nil {
				continue // a carried value
			}
			if s.hasW && s.out == outInfo {
				if !s.hasRead {
					blindInfo[s.key] = true
				} else {
					if infoReads[s.key] == nil {
						infoReads[s.key] = map[int64]bool{}
					}
					infoReads[s.key][s.read] = true
				}
			}
			l := lastOf[s.key]
			if l == nil {
				lastOf[s.key] = &lastSection{s: s, maxRet: -1}
				continue
			}
			if s.ret >= l.s.ret {
				l.maxRet = max(l.maxRet, l.s.ret)
				l.s = s
			} else {
				l.maxRet = max(l.maxRet, s.ret)
			}
			l.overlaps = l.maxRet >= l.s.call
		}
	}
	return parts
}

// lastSection is the latest-returning counter section of a key so far.
type lastSection struct {
	s        *sectionInput
	overlaps bool  // another section returned at or after its call
	maxRet   int64 // latest return of the others
}

// value is the counter's value after the last section, when determined:
// it overlaps no other section, its outcome is known, and no section with
// unknown outcome (reads infoReads, or a blind one) may take effect after
// it.
func (l *lastSection) value(infoReads map[int64]bool, blindInfo bool) (int64, bool) {
	s := l.s
	if l.overlaps || blindInfo {
		return 0, false
	}
	var v int64
	switch {
	case s.hasW && s.out == outOK:
		v = s.write
	case s.hasW && s.out == outFail && s.hasRead, !s.hasW && s.hasRead:
		v = s.read
	default:
		return 0, false
	}
	if infoReads[v] {
		return 0, false
	}
	return v, true
}

// checkSegments is Check over the segments: every lease and write lies in
// one segment (see Segments). Overlaps come first, then the writes, each
// in segment order, as Check lists them.
func (e Exclusion) checkSegments(ctx context.Context, h history.History, bounds [][2]int, p pool) Result {
	rs := make([]Result, len(bounds))
	p.each(len(bounds), func(i int) { rs[i] = e.Check(ctx, h[bounds[i][0]:bounds[i][1]]) })
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
	return Result{Name: e.Name(), Valid: al.verdict(Valid), Anomalies: al.list, Details: d}
}
