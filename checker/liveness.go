package checker

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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
//     if none), every key on which acquires were invoked must see one
//     succeed, unless none of them failed when nobody could hold the key;
//     and no key may end "never freed" (see NeverFreedAfter): the no-TTL
//     deadlock, the fair lock's dead waiter. It is judged only when the
//     history runs the recovery grace (longest TTL + RetryInterval) past
//     the last heal with no fault open at the end; otherwise the details
//     say so and, when required, the verdict is Unknown.
//   - MaxWait > 0: an acquire that waited longer (ok, or failed after
//     waiting) is starvation.
//   - RequireFIFO: FIFO violations (counted whenever Fair is set) are
//     fatal.
type Liveness struct {
	RequireRecovery bool
	// NeverFreedAfter: a key whose last acquire ok is followed by at least
	// three failed acquires no possible holder explains (see
	// possibleHolders) and this long without an acquire ok until the end
	// is "never freed". 0 means 3 × the longest TTL (3 s without TTLs).
	NeverFreedAfter time.Duration
	MaxWait         time.Duration
	// Fair counts FIFO violations: acquires A and B on one key, A invoked
	// at least FIFOMargin (for A reaching the server later) before B, B
	// returned ok while A still waited (completed later, or never).
	Fair        bool
	RequireFIFO bool
	FIFOMargin  time.Duration
	// RetryInterval is how long a client may wait between two attempts
	// (the lock's retry delay, the workload's pause after a failure): part
	// of the recovery grace (see RequireRecovery). 0 means the longest gap
	// seen between a failed acquire's completion and its process's next.
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
	slices.Sort(xs)
	return percentilesOf(len(xs), func(i int) int64 { return xs[i] })
}

// percentilesOf are the percentiles of n sorted latencies, the i-th
// smallest at(i).
func percentilesOf(n int, at func(i int) int64) Percentiles {
	if n == 0 {
		return Percentiles{}
	}
	q := func(p float64) int64 { return at(min(max(int(p*float64(n)+0.5)-1, 0), n-1)) }
	return Percentiles{N: n, P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: at(n - 1)}
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

// livenessRun is one liveness check in progress.
type livenessRun struct {
	l       *Liveness
	d       LivenessDetails
	al      anomalyList
	leases  map[int]*liveLease // op.Lease -> the server's side of it (see liveLease)
	acq     []*op              // acquires, invoke order
	windows []Window
	// end is the last record's time; maxTTL the longest TTL asked;
	// retryGap the longest gap between a failed acquire's completion and
	// its process's next acquire.
	end, maxTTL, retryGap int64
	notJudged             bool
}

// Check computes the liveness summary and the anomalies: the engine over
// h with this checker alone (see checkPart).
func (l *Liveness) Check(ctx context.Context, h history.History) Result {
	return checkPart(ctx, l, h)
}

// startStream sets the engine's liveness summary to this checker's
// requirements.
func (l *Liveness) startStream(st *stream) { st.liveness = newLiveStream(l, st.tokens) }

// streamResult is the liveness summary's result (see stream.result,
// which ends it first).
func (l *Liveness) streamResult(st *stream) Result { return st.live }

// result is the check's result from its details and anomalies.
func (r *livenessRun) result() Result {
	l := r.l
	res := Result{Name: l.Name(), Valid: r.al.verdict(Valid)}
	if res.Valid == Valid && r.notJudged && l.RequireRecovery {
		res.Valid, res.Error = Unknown, "recovery was required but could not be judged: "+strings.Join(r.d.NotJudged, "; ")
	}
	res.Anomalies = r.al.list
	res.Details = r.d
	return res
}

// keyProgress is one key's acquires as recovery sees them.
type keyProgress struct {
	invokedAfter *op // the first acquire invoked after the last heal
	okAfter      int // acquire oks returned after it
	lastOK       *op // the latest-returning acquire ok
	// fails are the failed acquires (certain failures, not unknown
	// outcomes) invoked after lastOK returned, or all of them if none
	// did, in invoke order.
	fails   []*op
	unknown []*op // acquires with unknown outcome, invoke order
}

// recovery judges, per key (prog: see progress), recovery after the last
// heal and a lock never freed. Only failures no possible holder explains
// count (see possibleHolders).
func (r *livenessRun) recovery(prog map[string]*keyProgress) {
	var unhealed []string
	for _, w := range r.windows {
		if w.Unhealed {
			unhealed = append(unhealed, w.Label())
		}
	}
	freeAfter := spanOr(r.l.NeverFreedAfter, r.maxTTL)
	retry := int64(r.l.RetryInterval)
	if retry <= 0 {
		retry = r.retryGap
	}
	r.d.RecoveryGraceNS = satAdd(r.maxTTL, retry)
	for _, k := range sortedKeys(prog) {
		p := prog[k]
		hs := r.possibleHolders(p)
		fails := unexplained(p.fails, hs)
		r.noRecovery(k, p, fails, unhealed)
		r.neverFreed(k, p, fails, freeAfter, unhealed)
	}
}

// noRecovery judges recovery on key k after the last heal: acquires were
// invoked after it and none succeeded. It is proven only by a failure
// invoked after the heal that no possible holder explains (fails): a key
// whose clients stopped asking for it while it may have been held (a cron
// tick's lock, taken by an acquire with unknown outcome) shows nothing
// either way, and is not judged for it.
func (r *livenessRun) noRecovery(k string, p *keyProgress, fails []*op, unhealed []string) {
	healed := r.d.HealedAt
	if p.invokedAfter == nil || p.okAfter > 0 {
		return
	}
	i := slices.IndexFunc(fails, func(f *op) bool { return f.Call > healed })
	switch {
	case len(unhealed) > 0:
		r.skip(k, fmt.Sprintf("recovery not judged: faults %v still open when the history ended", unhealed))
	case r.end-healed < r.d.RecoveryGraceNS:
		r.skip(k, fmt.Sprintf("recovery not judged: the history ended %s after the last heal, less than the recovery grace %s (longest TTL + retry interval)",
			fmtDur(r.end-healed), fmtDur(r.d.RecoveryGraceNS)))
	case i >= 0:
		r.al.add(Anomaly{Kind: "no-recovery", Fatal: r.l.RequireRecovery, Ops: opIndices(p.invokedAfter, fails[i]),
			Text: fmt.Sprintf("key %q: acquires were invoked after the faults healed at %s but none succeeded within %s; op %d failed when nobody could hold the key",
				k, fmtTime(healed), fmtDur(r.end-healed), fails[i].Inv)})
	}
}

// skip notes a check on key k that could not be judged.
func (r *livenessRun) skip(k, why string) {
	r.notJudged = true
	r.d.NotJudged = append(r.d.NotJudged, fmt.Sprintf("key %q: %s", k, why))
}

// leaseEnd is the instant after which the lease of acquire a, granted by
// from, must have run out by its TTL and extends; from itself without a
// TTL (failures after it count: nothing frees the lock).
func (r *livenessRun) leaseEnd(a *op, from int64) int64 {
	if a.TTL <= 0 {
		return from
	}
	end := satAdd(from, a.TTL)
	if l := r.leases[a.Lease]; l != nil {
		end = max(end, l.extendedTo)
	}
	return end
}

// releasedAt is the invoke of the first release ok of acquire a's lease.
func (r *livenessRun) releasedAt(a *op) (int64, bool) {
	if l := r.leases[a.Lease]; l != nil && l.released {
		return l.releasedAt, true
	}
	return 0, false
}

// neverFreed reports a key whose lock was never freed: at least three
// acquires failed, unexplained by any possible holder (fails), while no
// fault was in effect, over at least freeAfter until the history ended.
// The holder is the last acquire ok, or if it released, the unknown
// acquires invoked before the last failure that never released (named;
// with none the lock was freed: StuckWatch's matter). Not judged while a
// fault is open at the end.
func (r *livenessRun) neverFreed(k string, p *keyProgress, fails []*op, freeAfter int64, unhealed []string) {
	lastOK := p.lastOK
	since := int64(0)
	var holders []*op
	who := "no acquire ever succeeded"
	if lastOK != nil {
		since = lastOK.Return
		who = fmt.Sprintf("last taken by process %d (token %s) at %s", lastOK.Process, lastOK.Token, fmtTime(since))
		if rel, ok := r.releasedAt(lastOK); ok {
			var names []string
			for _, u := range p.unknown {
				if _, freed := r.releasedAt(u); freed || u.Call >= lastCall(fails) {
					continue
				}
				holders = append(holders, u)
				if len(names) < 5 {
					names = append(names, fmt.Sprintf("process %d (op %d)", u.Process, u.Inv))
				}
			}
			if len(holders) == 0 {
				return // released, and nobody else can hold it
			}
			who = fmt.Sprintf("process %d released it at %s; it may since have been taken by acquires with unknown outcome: %s",
				lastOK.Process, fmtTime(rel), strings.Join(names, ", "))
		} else {
			holders = []*op{lastOK}
		}
	}
	if len(fails) < 3 || r.end-since < freeAfter {
		return
	}
	if len(unhealed) > 0 {
		r.skip(k, fmt.Sprintf("never-freed not judged: faults %v still open when the history ended", unhealed))
		return
	}
	// A failure while a fault was in effect may be the fault's (a crashed
	// quorum refuses every acquire): only those invoked while none was
	// count, as for lock-stuck (StuckWatch).
	if fails = slices.DeleteFunc(fails, func(o *op) bool { return r.inFault(o.Call) }); len(fails) < 3 {
		return
	}
	r.d.NeverFreed++
	if len(holders) > 5 {
		holders = holders[:5]
	}
	ops := opIndices(append(holders, fails[len(fails)-1])...)
	r.al.add(Anomaly{Kind: "lock-never-freed", Fatal: r.l.RequireRecovery, Ops: ops,
		Text: fmt.Sprintf("key %q: lock never freed: %s; %d acquires failed when no lease could hold it, over the following %s until the history ended",
			k, who, len(fails), fmtDur(r.end-since))})
}

// inFault reports whether a fault window was open at time t.
func (r *livenessRun) inFault(t int64) bool {
	return slices.ContainsFunc(r.windows, func(w Window) bool { return w.Contains(t) })
}

// lastCall is the latest invoke time of os (Inf if none).
func lastCall(os []*op) int64 {
	if len(os) == 0 {
		return Inf
	}
	return slices.MaxFunc(os, func(a, b *op) int { return cmp.Compare(a.Call, b.Call) }).Call
}
