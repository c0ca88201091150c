package checker

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// The test oracle: every checker run on the whole history held in memory,
// as the composition ran before the streamed engine became the only
// check. The equivalence tests (checkBoth) hold the engine to it.

// checkWhole runs the composition's checkers on the whole history, in
// parallel: for a history the streamed check cannot cut (see CheckSource).
// The composed result's Seconds is the whole check's time, each part's
// its own checker's.
func (c *Composite) checkWhole(ctx context.Context, h history.History) (res Result) {
	start := time.Now()
	res = Result{Name: c.Label}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if err := Validate(h); err != nil { // refused: Unknown, with Validate's message as an Invalid part
		res.Valid, res.Error = Unknown, err.Error()
		res.Results = []Result{{Name: "validate", Valid: Invalid, Error: err.Error(), Seconds: time.Since(start).Seconds()}}
		return res
	}
	res.Results = make([]Result, len(c.Checkers))
	var wg sync.WaitGroup
	for i, ch := range c.Checkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.Results[i] = wholeCheck(ctx, ch, h)
		}()
	}
	wg.Wait()
	// the token check, merged verdicts, no acquire ok, fault labels
	// (steps 2, 4, 5 and 6 of Compose)
	t0 := time.Now()
	tr := Tokens(h)
	tr.Seconds = time.Since(t0).Seconds()
	anyOK := slices.ContainsFunc(h, func(o history.Op) bool { return o.F == history.FAcquire && o.Type == history.OK })
	finishWith(&res, tr, anyOK, FaultWindows(h), int64(len(h)), func(i int64) int64 { return h[i].Time })
	return res
}

// wholeLiveness is the liveness check of the whole history in memory, as
// it ran before the streamed engine (liveStream) was the only one.
func (l *Liveness) wholeLiveness(h history.History) Result {
	r := wholeRun(l, h)
	r.d.Windows = availabilityNaive(r)
	r.recovery(r.progress())
	w := NewStuckWatch(l.NeverFreedAfter)
	for i := range h {
		w.Add(&h[i])
	}
	r.stuck(w)
	if l.Fair || l.RequireFIFO {
		r.d.FIFOViolations = l.fifo(r.acq, r.end, &r.al)
	}
	return r.result()
}

// wholeRun is the liveness check of h in memory up to its acquires (see
// acquires): its leases, fault windows, end, heal and acquires.
func wholeRun(l *Liveness, h history.History) *livenessRun {
	os := ops(h)
	fillTokens(os)
	r := &livenessRun{l: l, leases: serverLeases(os), windows: FaultWindows(h)}
	for i := range h {
		r.end = max(r.end, h[i].Time)
	}
	for _, w := range r.windows {
		r.d.HealedAt = max(r.d.HealedAt, w.End)
	}
	r.acquires(os)
	return r
}

// acquires counts the acquires by outcome, reports starvation, and takes
// the wait and hold percentiles.
func (r *livenessRun) acquires(os []op) {
	var waits, waitsAny, holds []int64
	lastFail := map[int]int64{} // process -> completion of its failed acquire
	for i := range os {
		o := &os[i]
		if o.F != history.FAcquire {
			continue
		}
		r.acq = append(r.acq, o)
		r.maxTTL = max(r.maxTTL, o.TTL)
		if t, ok := lastFail[o.Process]; ok {
			r.retryGap = max(r.retryGap, o.Call-t)
			delete(lastFail, o.Process)
		}
		switch o.Type {
		case history.OK:
			r.d.Acquires.OK++
			waits = append(waits, o.Return-o.Call)
		case history.Fail:
			r.d.Acquires.Fail++
			lastFail[o.Process] = o.Done
		default:
			r.d.Acquires.Info++
		}
		if o.Ret >= 0 {
			waitsAny = append(waitsAny, o.Done-o.Call)
		}
		if mw := r.l.MaxWait; mw > 0 && o.Ret >= 0 && o.Done-o.Call > int64(mw) {
			r.d.Starved++
			r.al.add(Anomaly{Kind: "starvation", Fatal: true, Ops: o.indices(),
				Text: fmt.Sprintf("key %q: process %d waited %s for the lock (%s), more than %s", o.Key, o.Process, fmtDur(o.Done-o.Call), o.Type, mw)})
		}
	}
	measured := map[int]bool{} // acquire ok -> its hold measured: to its first release invoked after it returned
	for i := range os {
		if o := &os[i]; o.F == history.FRelease && o.Lease >= 0 && !measured[o.Lease] {
			if a := &os[o.Lease]; a.Type == history.OK && o.Call >= a.Return {
				measured[o.Lease] = true
				holds = append(holds, o.Call-a.Return)
			}
		}
	}
	if n := r.d.Acquires.OK + r.d.Acquires.Fail + r.d.Acquires.Info; n > 0 {
		r.d.SuccessRate = float64(r.d.Acquires.OK) / float64(n)
	}
	r.d.Wait, r.d.WaitAny, r.d.Hold = percentiles(waits), percentiles(waitsAny), percentiles(holds)
}

// progress groups the acquires by key.
func (r *livenessRun) progress() map[string]*keyProgress {
	prog := map[string]*keyProgress{}
	for _, o := range r.acq { // invoke order
		p := prog[o.Key]
		if p == nil {
			p = &keyProgress{}
			prog[o.Key] = p
		}
		if o.Call > r.d.HealedAt && p.invokedAfter == nil {
			p.invokedAfter = o
		}
		switch o.Type {
		case history.OK:
			if o.Return > r.d.HealedAt {
				p.okAfter++
				r.d.OKAfterHeal++
			}
			if p.lastOK == nil || o.Return > p.lastOK.Return {
				p.lastOK, p.fails = o, nil
			}
		case history.Fail:
		default:
			p.unknown = append(p.unknown, o)
		}
	}
	for _, o := range r.acq {
		p := prog[o.Key]
		if o.Type == history.Fail && (p.lastOK == nil || o.Call > p.lastOK.Return) {
			p.fails = append(p.fails, o)
		}
	}
	return prog
}

// fifo counts pairs (A, B) on one key where A was invoked at least
// FIFOMargin before B and B returned ok while A was still waiting.
func (l *Liveness) fifo(acq []*op, end int64, al *anomalyList) int {
	type ev struct {
		t   int64
		o   *op
		ret bool
	}
	var evs []ev
	for _, o := range acq {
		evs = append(evs, ev{o.Call, o, false})
		evs = append(evs, ev{min(o.Done, end), o, true})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return !evs[i].ret && evs[j].ret
	})
	waiting := map[string][]*op{}
	n := 0
	for _, e := range evs {
		k := e.o.Key
		if !e.ret {
			waiting[k] = append(waiting[k], e.o)
			continue
		}
		ws := waiting[k]
		for i, w := range ws {
			if w == e.o {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		waiting[k] = ws
		if e.o.Type != history.OK {
			continue
		}
		for _, a := range ws {
			if a.Call+int64(l.FIFOMargin) < e.o.Call && a.Done > e.o.Return {
				n++
				al.add(Anomaly{Kind: "fifo-violation", Fatal: l.RequireFIFO, Ops: opIndices(a, e.o),
					Text: fmt.Sprintf("key %q: process %d (invoked %s) got the lock at %s while process %d, waiting since %s, was still waiting",
						k, e.o.Process, fmtTime(e.o.Call), fmtTime(e.o.Return), a.Process, fmtTime(a.Call))})
			}
		}
	}
	return n
}

// wholeCheck is ch's check of the whole history in memory: the oracle's
// own liveness, every other checker's Check.
func wholeCheck(ctx context.Context, ch Checker, h history.History) Result {
	start := time.Now()
	var r Result
	switch x := ch.(type) {
	case *Liveness:
		r = x.wholeLiveness(h)
	case *Resource:
		r = x.wholeResource(ctx, h)
	case Fencing:
		r = x.wholeFencing(ctx, h)
	default:
		return safeCheck(ctx, ch, h)
	}
	r.Seconds = time.Since(start).Seconds()
	return r
}

// wholeFencing feeds the history's writes and acquires to a
// FenceValidator in time order: the fencing check of the whole history in
// memory.
func (f Fencing) wholeFencing(ctx context.Context, h history.History) Result {
	start := time.Now()
	run := newFencingRun(f.serverLog())
	for _, i := range timeOrder(h) {
		if i&0xFFFF == 0 && ctx.Err() != nil {
			return Result{Name: f.Name(), Valid: Unknown, Error: ctx.Err().Error()}
		}
		run.feed(&h[i])
	}
	run.end()
	run.v.Stats.ElapsedMS = time.Since(start).Milliseconds()
	return run.v.Result()
}

// timeOrder returns the record indices of h ordered by time (stable, so
// equal times keep index order).
func timeOrder(h history.History) []int {
	idx := make([]int, len(h))
	for i := range h {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(h[a].Time, h[b].Time) })
	return idx
}

// wholeResource runs every resource check that applies on the whole
// history in memory.
func (r *Resource) wholeResource(ctx context.Context, h history.History) Result {
	start := time.Now()
	res := Result{Name: r.Name(), Valid: Valid}
	var d ResourceDetails
	var al anomalyList
	os := ops(h)

	secs := counterSections(os)
	d.Sections = len(secs)
	if len(secs) > 0 { // the counter's search of the whole history
		p := r.counterPiece(ctx, secs, keepWhole)
		res.Valid, res.Error, d.Linearization = p.valid, p.err, p.lin
		for _, k := range sortedKeys(p.byKey) {
			al.add(p.byKey[k])
		}
	}
	// lost updates (when there are counter sections), cron, api, leader
	lost, cron := newLostUpdateCheck(), newCronCheck()
	for i := range os {
		if len(secs) > 0 {
			lost.add(&os[i], &al)
		}
		cron.add(&os[i])
	}
	if len(secs) > 0 {
		d.Counter = lost.finish(r, &al)
	}
	d.Cron = cron.finish(r, &al)
	d.API = r.checkAPI(os, &al)
	d.Leader = checkLeader(os, &al)
	r.finish(&res, &al, d, start)
	return res
}

// Tokens is the token check (tokenCheck: no token handed to two acquires
// of a key, a fatal "reused-token") of the whole history, as its own
// "tokens" result. h must have passed Validate.
func Tokens(h history.History) Result {
	t := newTokenCheck(newTokTable())
	os := ops(h)
	for i := range os {
		t.add(&os[i])
	}
	return t.result()
}
