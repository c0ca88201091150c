package checker

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Liveness measures progress: acquire success rate, wait and hold latency
// percentiles, availability during and after fault windows, starvation,
// FIFO order, a lock never freed.
//
// Liveness problems are always reported as anomalies, but they make the
// result Invalid only for the checks the options ask for — a lock is not
// wrong to be unavailable during a majority partition:
//
//   - RequireRecovery: after the last fault window closes (from the start
//     if there were none), every key on which acquires were invoked must
//     see an acquire succeed; and no key may end "never freed" (see
//     NeverFreedAfter). This is the no-TTL deadlock and the fair lock's
//     dead waiter.
//   - MaxWait > 0: an acquire that waited longer (ok, or failed after
//     waiting) is starvation.
//   - RequireFIFO: FIFO violations (counted whenever Fair is set) are
//     fatal.
type Liveness struct {
	RequireRecovery bool
	// NeverFreedAfter: a key whose last acquire ok is followed by at least
	// three failed or unknown acquires and by this much time with no
	// acquire ok until the history ends is "never freed". 0 means three
	// times the longest TTL seen (3 s when no acquire had a TTL).
	NeverFreedAfter time.Duration
	MaxWait         time.Duration
	// Fair counts FIFO violations: acquires A and B on one key, A invoked
	// at least FIFOMargin before B, B returned ok while A was still
	// waiting (A completed later, with any outcome, or never). The margin
	// allows for A's request reaching the server after B's.
	Fair        bool
	RequireFIFO bool
	FIFOMargin  time.Duration
}

// Name is "liveness".
func (*Liveness) Name() string { return "liveness" }

// Percentiles of a latency sample, in ns.
type Percentiles struct {
	N   int   `json:"n"`
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

func percentiles(xs []int64) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	slices.Sort(xs)
	q := func(p float64) int64 {
		i := int(p*float64(len(xs))+0.5) - 1
		return xs[min(max(i, 0), len(xs)-1)]
	}
	return Percentiles{N: len(xs), P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: xs[len(xs)-1]}
}

// WindowAvailability is acquire progress during one fault window and in the
// quiet period after it (until the next window starts or the history ends).
type WindowAvailability struct {
	Window
	Invoked int `json:"invoked"` // acquires invoked during the window
	OK      int `json:"ok"`      // acquires that returned ok during it
	AfterOK int `json:"after_ok"`
	// RecoveryNS is the time from the window's end to the first acquire ok
	// after it; -1 if none.
	RecoveryNS int64 `json:"recovery_ns"`
}

// LivenessDetails summarises a liveness check.
type LivenessDetails struct {
	Acquires struct {
		OK   int `json:"ok"`
		Fail int `json:"fail"`
		Info int `json:"info"`
	} `json:"acquires"`
	SuccessRate float64              `json:"success_rate"`
	Wait        Percentiles          `json:"wait"`     // acquire ok: Return − Call
	WaitAny     Percentiles          `json:"wait_any"` // every completed acquire
	Hold        Percentiles          `json:"hold"`     // acquire Return to release Call
	Windows     []WindowAvailability `json:"windows,omitempty"`
	// HealedAt is when the last fault window closed (0 if none).
	HealedAt       int64 `json:"healed_at"`
	OKAfterHeal    int   `json:"ok_after_heal"`
	FIFOViolations int   `json:"fifo_violations"`
	NeverFreed     int   `json:"never_freed"`
	Starved        int   `json:"starved"`
}

// Check computes the liveness summary and the anomalies.
func (l *Liveness) Check(ctx context.Context, h history.History) Result {
	res := Result{Name: l.Name()}
	var d LivenessDetails
	var al anomalyList
	os := ops(h)
	fillTokens(os)
	windows := FaultWindows(h)
	var end, maxTTL int64
	for i := range h {
		end = max(end, h[i].Time)
	}
	for _, w := range windows {
		d.HealedAt = max(d.HealedAt, w.End)
	}
	var acq []*op
	var waits, waitsAny, holds []int64
	acqByToken := map[string]*op{}
	extendedTo := map[string]int64{} // key+token -> latest extend ok return + TTL
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			acq = append(acq, o)
			maxTTL = max(maxTTL, o.TTL)
			switch o.Type {
			case history.OK:
				d.Acquires.OK++
				waits = append(waits, o.Return-o.Call)
				acqByToken[o.Key+"\x00"+o.Token] = o
			case history.Fail:
				d.Acquires.Fail++
			default:
				d.Acquires.Info++
			}
			if o.Ret >= 0 {
				waitsAny = append(waitsAny, o.Done-o.Call)
			}
			if l.MaxWait > 0 && o.Ret >= 0 && o.Done-o.Call > int64(l.MaxWait) {
				d.Starved++
				al.add(Anomaly{Kind: "starvation", Fatal: true, Ops: o.indices(),
					Text: fmt.Sprintf("key %q: process %d waited %s for the lock (%s), more than %s", o.Key, o.Process, fmtDur(o.Done-o.Call), o.Type, l.MaxWait)})
			}
		case history.FExtend:
			if o.Type == history.OK && o.TTL > 0 {
				k := o.Key + "\x00" + o.Token
				extendedTo[k] = max(extendedTo[k], o.Return+o.TTL)
			}
		case history.FRelease:
			if a := acqByToken[o.Key+"\x00"+o.Token]; a != nil && o.Call >= a.Return {
				holds = append(holds, o.Call-a.Return)
				delete(acqByToken, o.Key+"\x00"+o.Token)
			}
		}
	}
	if n := d.Acquires.OK + d.Acquires.Fail + d.Acquires.Info; n > 0 {
		d.SuccessRate = float64(d.Acquires.OK) / float64(n)
	}
	d.Wait, d.WaitAny, d.Hold = percentiles(waits), percentiles(waitsAny), percentiles(holds)

	// availability per fault window
	for i, w := range windows {
		wa := WindowAvailability{Window: w, RecoveryNS: -1}
		next := end
		for _, w2 := range windows[i+1:] {
			if w2.Start > w.End {
				next = min(next, w2.Start)
			}
		}
		for _, o := range acq {
			if w.Contains(o.Call) {
				wa.Invoked++
			}
			if o.Type != history.OK {
				continue
			}
			if w.Contains(o.Return) {
				wa.OK++
			}
			if o.Return > w.End && o.Return <= next {
				wa.AfterOK++
			}
			if o.Return > w.End && (wa.RecoveryNS < 0 || o.Return-w.End < wa.RecoveryNS) {
				wa.RecoveryNS = o.Return - w.End
			}
		}
		d.Windows = append(d.Windows, wa)
	}

	// recovery after the last heal, per key
	type keyProg struct {
		invokedAfter *op
		okAfter      int
		lastOK       *op
		failsAfterOK []*op
	}
	prog := map[string]*keyProg{}
	unhealed := false
	for _, w := range windows {
		unhealed = unhealed || w.Unhealed
	}
	for _, o := range acq { // invoke order
		p := prog[o.Key]
		if p == nil {
			p = &keyProg{}
			prog[o.Key] = p
		}
		if o.Call > d.HealedAt && p.invokedAfter == nil {
			p.invokedAfter = o
		}
		if o.Type == history.OK {
			if o.Return > d.HealedAt {
				p.okAfter++
				d.OKAfterHeal++
			}
			if p.lastOK == nil || o.Return > p.lastOK.Return {
				p.lastOK, p.failsAfterOK = o, nil
			}
		}
	}
	for _, o := range acq {
		p := prog[o.Key]
		if o.Type != history.OK && (p.lastOK == nil || o.Call > p.lastOK.Return) {
			p.failsAfterOK = append(p.failsAfterOK, o)
		}
	}
	freeAfter := int64(l.NeverFreedAfter)
	if freeAfter <= 0 {
		freeAfter = 3 * maxTTL
		if freeAfter == 0 {
			freeAfter = int64(3 * time.Second)
		}
	}
	keys := make([]string, 0, len(prog))
	for k := range prog {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := prog[k]
		if p.invokedAfter != nil && p.okAfter == 0 && !unhealed {
			al.add(Anomaly{Kind: "no-recovery", Fatal: l.RequireRecovery, Ops: p.invokedAfter.indices(),
				Text: fmt.Sprintf("key %q: acquires were invoked after the faults healed at %s but none succeeded", k, fmtTime(d.HealedAt))})
		}
		since := int64(0)
		var holder []int64
		fails := p.failsAfterOK
		if p.lastOK != nil {
			since = p.lastOK.Return
			holder = p.lastOK.indices()
			// Only acquires that failed after the holder's lease (and any
			// extension of it) had run out show the lock was never freed:
			// failing against a live lease is the lock working.
			if ttl := p.lastOK.TTL; ttl > 0 {
				live := max(p.lastOK.Return+ttl, extendedTo[k+"\x00"+p.lastOK.Token])
				fails = slices.DeleteFunc(slices.Clone(fails), func(o *op) bool { return o.Call <= live })
			}
		}
		if len(fails) >= 3 && end-since >= freeAfter {
			d.NeverFreed++
			who := "no acquire ever succeeded"
			if p.lastOK != nil {
				who = fmt.Sprintf("last taken by process %d (token %s) at %s", p.lastOK.Process, p.lastOK.Token, fmtTime(since))
			}
			ops := append(holder, fails[len(fails)-1].indices()...)
			sortInt64(ops)
			al.add(Anomaly{Kind: "lock-never-freed", Fatal: l.RequireRecovery, Ops: ops,
				Text: fmt.Sprintf("key %q: lock never freed: %s; %d acquires failed after its lease had run out, over the following %s until the history ended",
					k, who, len(fails), fmtDur(end-since))})
		}
	}

	if l.Fair || l.RequireFIFO {
		d.FIFOViolations = l.fifo(acq, end, &al)
	}
	res.Valid = al.verdict(Valid)
	res.Anomalies = al.list
	res.Details = d
	return res
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
