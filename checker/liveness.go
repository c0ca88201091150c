package checker

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
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
//     dead waiter. Recovery is judged only when it was given time: the
//     history must run at least the recovery grace (the longest TTL plus
//     the retry interval, see RetryInterval) past the last heal, and no
//     fault may still be open at the end. Otherwise it is not judged (the
//     details say so) and, when required, the verdict is Unknown: a run
//     cut short proves neither recovery nor its absence.
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
	// RetryInterval is how long a client may wait between two attempts to
	// take the lock (the lock's retry delay, or the workload's pause after
	// a failed acquire). Recovery after the last heal is judged only once
	// the history has run the longest TTL plus this much past it. 0 means
	// the longest gap seen between a failed acquire's completion and the
	// same process's next acquire.
	RetryInterval time.Duration
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
	// RecoveryGraceNS is the time after the last heal that recovery was
	// given (longest TTL + retry interval).
	RecoveryGraceNS int64 `json:"recovery_grace_ns"`
	// NotJudged explains, per key, a recovery or never-freed check that
	// could not be judged (history cut short, fault still open).
	NotJudged []string `json:"not_judged,omitempty"`
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
	held := map[int]*op{}         // acquire index -> acquire ok not yet released
	extendedTo := map[int]int64{} // lease -> latest extend ok return + TTL
	releasedAt := map[int]int64{} // lease -> call of its first release ok
	lastFail := map[int]int64{}   // process -> completion of its failed acquire
	var retryGap int64
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			acq = append(acq, o)
			maxTTL = max(maxTTL, o.TTL)
			if t, ok := lastFail[o.Process]; ok {
				retryGap = max(retryGap, o.Call-t)
				delete(lastFail, o.Process)
			}
			if o.Type == history.Fail {
				lastFail[o.Process] = o.Done
			}
			switch o.Type {
			case history.OK:
				d.Acquires.OK++
				waits = append(waits, o.Return-o.Call)
				held[i] = o
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
			if o.Type == history.OK && o.TTL > 0 && o.Lease >= 0 {
				extendedTo[o.Lease] = max(extendedTo[o.Lease], satAdd(o.Return, o.TTL))
			}
		case history.FRelease:
			if o.Lease < 0 {
				continue
			}
			if o.Type == history.OK {
				if _, ok := releasedAt[o.Lease]; !ok {
					releasedAt[o.Lease] = o.Call
				}
			}
			if a := held[o.Lease]; a != nil && o.Call >= a.Return {
				holds = append(holds, o.Call-a.Return)
				delete(held, o.Lease)
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
		unknown      []*op // acquires with unknown outcome, invoke order
	}
	prog := map[string]*keyProg{}
	var unhealed []string
	for _, w := range windows {
		if w.Unhealed {
			unhealed = append(unhealed, w.Label())
		}
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
		switch o.Type {
		case history.OK:
			if o.Return > d.HealedAt {
				p.okAfter++
				d.OKAfterHeal++
			}
			if p.lastOK == nil || o.Return > p.lastOK.Return {
				p.lastOK, p.failsAfterOK = o, nil
			}
		case history.Fail:
		default:
			p.unknown = append(p.unknown, o)
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
	retry := int64(l.RetryInterval)
	if retry <= 0 {
		retry = retryGap
	}
	d.RecoveryGraceNS = satAdd(maxTTL, retry)
	notJudged := false
	skip := func(k, why string) {
		notJudged = true
		d.NotJudged = append(d.NotJudged, fmt.Sprintf("key %q: %s", k, why))
	}
	// leaseEnd is the instant after which the lease of acquire a, granted
	// by from, must have run out by its TTL and extends; from itself
	// without a TTL (failures after it count: nothing frees the lock).
	leaseEnd := func(a *op, from int64) int64 {
		if a.TTL <= 0 {
			return from
		}
		return max(satAdd(from, a.TTL), extendedTo[a.Lease])
	}
	keys := make([]string, 0, len(prog))
	for k := range prog {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := prog[k]
		if p.invokedAfter != nil && p.okAfter == 0 {
			switch {
			case len(unhealed) > 0:
				skip(k, fmt.Sprintf("recovery not judged: faults %v still open when the history ended", unhealed))
			case end-d.HealedAt < d.RecoveryGraceNS:
				skip(k, fmt.Sprintf("recovery not judged: the history ended %s after the last heal, less than the recovery grace %s (longest TTL + retry interval)",
					fmtDur(end-d.HealedAt), fmtDur(d.RecoveryGraceNS)))
			default:
				al.add(Anomaly{Kind: "no-recovery", Fatal: l.RequireRecovery, Ops: p.invokedAfter.indices(),
					Text: fmt.Sprintf("key %q: acquires were invoked after the faults healed at %s but none succeeded within %s", k, fmtTime(d.HealedAt), fmtDur(end-d.HealedAt))})
			}
		}
		l.neverFreed(k, p.lastOK, p.failsAfterOK, p.unknown, releasedAt, leaseEnd, end, freeAfter, unhealed, skip, &d, &al)
	}
	if l.Fair || l.RequireFIFO {
		d.FIFOViolations = l.fifo(acq, end, &al)
	}
	res.Valid = al.verdict(Valid)
	if res.Valid == Valid && notJudged && l.RequireRecovery {
		res.Valid, res.Error = Unknown, "recovery was required but could not be judged: "+strings.Join(d.NotJudged, "; ")
	}
	res.Anomalies = al.list
	res.Details = d
	return res
}

// neverFreed reports a key whose lock was never freed: at least three
// acquires failed (or had unknown outcomes) after the last lease that can
// hold it had run out, over at least freeAfter until the history ended.
// The lease that can hold it is the last acquire ok's, unless that holder
// released it (a release ok): then only an acquire with unknown outcome,
// invoked before the last such failure and never released, can hold it,
// and the anomaly names those ops; with none, the lock was freed. Not
// judged while a fault is still open at the end (the failures may be the
// fault's).
func (l *Liveness) neverFreed(k string, lastOK *op, fails, unknown []*op, releasedAt map[int]int64,
	leaseEnd func(*op, int64) int64, end, freeAfter int64, unhealed []string,
	skip func(k, why string), d *LivenessDetails, al *anomalyList) {
	since := int64(0)
	var holders []*op
	who := "no acquire ever succeeded"
	live := int64(-1) // failures invoked after this count
	if lastOK != nil {
		since = lastOK.Return
		if rel, ok := releasedAt[lastOK.Lease]; ok {
			// The holder freed it; only certain failures count, after
			// every acquire with unknown outcome that may hold it now.
			fails = slices.DeleteFunc(slices.Clone(fails), func(o *op) bool { return o.Type != history.Fail })
			var names []string
			for _, u := range unknown {
				if _, freed := releasedAt[u.Lease]; freed || u.Call >= lastCall(fails) {
					continue
				}
				holders = append(holders, u)
				live = max(live, leaseEnd(u, u.Done))
				if len(names) < 5 {
					names = append(names, fmt.Sprintf("process %d (op %d)", u.Process, u.Inv))
				}
			}
			if len(holders) == 0 {
				return // released, and nobody else can hold it
			}
			who = fmt.Sprintf("process %d released it at %s; it may since be held by acquires with unknown outcome: %s",
				lastOK.Process, fmtTime(rel), strings.Join(names, ", "))
		} else {
			holders = []*op{lastOK}
			// Only acquires that failed after the holder's lease (and
			// any extension of it) had run out show the lock was never
			// freed: failing against a live lease is the lock working.
			if lastOK.TTL > 0 {
				live = leaseEnd(lastOK, lastOK.Return)
			}
			who = fmt.Sprintf("last taken by process %d (token %s) at %s", lastOK.Process, lastOK.Token, fmtTime(since))
		}
	}
	fails = slices.DeleteFunc(slices.Clone(fails), func(o *op) bool { return o.Call <= live })
	if len(fails) < 3 || end-since < freeAfter {
		return
	}
	if len(unhealed) > 0 {
		skip(k, fmt.Sprintf("never-freed not judged: faults %v still open when the history ended", unhealed))
		return
	}
	d.NeverFreed++
	if len(holders) > 5 {
		holders = holders[:5]
	}
	ops := opIndices(append(holders, fails[len(fails)-1])...)
	al.add(Anomaly{Kind: "lock-never-freed", Fatal: l.RequireRecovery, Ops: ops,
		Text: fmt.Sprintf("key %q: lock never freed: %s; %d acquires failed after its lease had run out, over the following %s until the history ended",
			k, who, len(fails), fmtDur(end-since))})
}

// lastCall is the latest invoke time of os (Inf if none).
func lastCall(os []*op) int64 {
	if len(os) == 0 {
		return Inf
	}
	t := os[0].Call
	for _, o := range os {
		t = max(t, o.Call)
	}
	return t
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
