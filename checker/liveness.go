package checker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Liveness measures progress: acquire success rate, wait and hold latency
// percentiles, availability during and after fault windows, starvation,
// FIFO order, a lock never freed. Problems are always reported, but fatal
// only for the checks the options ask for (a lock may be unavailable
// during a majority partition):
//
//   - RequireRecovery: after the last heal, every key on which acquires
//     were invoked sees one succeed (unless none failed when nobody could
//     hold it), and no key ends "never freed". Judged only when the
//     history runs the recovery grace (longest TTL + RetryInterval) past
//     the last heal with no fault open; otherwise Unknown.
//   - MaxWait > 0: an acquire that waited longer is starvation.
//   - RequireFIFO: FIFO violations (counted whenever Fair) are fatal.
type Liveness struct {
	RequireRecovery bool
	// NeverFreedAfter: a key whose last acquire ok is followed by at least
	// three failed acquires no possible holder explains and this long
	// without an acquire ok until the end is "never freed". 0 means 3 ×
	// the longest TTL (3 s without TTLs).
	NeverFreedAfter time.Duration
	MaxWait         time.Duration
	// Fair counts FIFO violations: B, invoked more than FIFOMargin after A
	// on one key, returned ok while A still waited.
	Fair        bool
	RequireFIFO bool
	FIFOMargin  time.Duration
	// RetryInterval is how long a client may wait between two attempts;
	// 0 means the longest gap seen between a failed acquire's completion
	// and its process's next.
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

// percentilesOf are the percentiles of n sorted latencies, at(i) the i-th.
func percentilesOf(n int, at func(i int) int64) Percentiles {
	if n == 0 {
		return Percentiles{}
	}
	q := func(p float64) int64 { return at(min(max(int(p*float64(n)+0.5)-1, 0), n-1)) }
	return Percentiles{N: n, P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: at(n - 1)}
}

// WindowAvailability is acquire progress during one fault window and after
// it until the next starts (AfterOK). RecoveryNS is the time from its end
// to the first acquire ok after it; -1 if none.
type WindowAvailability struct {
	Window
	Invoked    int   `json:"invoked"` // acquires invoked during the window
	OK         int   `json:"ok"`      // acquires that returned ok during it
	AfterOK    int   `json:"after_ok"`
	RecoveryNS int64 `json:"recovery_ns"`
}

// LivenessDetails summarises a liveness check.
type LivenessDetails struct {
	Acquires    Outcomes             `json:"acquires"`
	SuccessRate float64              `json:"success_rate"`
	Wait        Percentiles          `json:"wait"`     // acquire ok: Return − Call
	WaitAny     Percentiles          `json:"wait_any"` // every completed acquire
	Hold        Percentiles          `json:"hold"`     // acquire Return to release Call
	Windows     []WindowAvailability `json:"windows,omitempty"`
	HealedAt    int64                `json:"healed_at"` // when the last fault window closed (0 if none)
	OKAfterHeal int                  `json:"ok_after_heal"`
	// FIFO violations, never-freed keys, starved acquires
	FIFOViolations  int   `json:"fifo_violations"`
	NeverFreed      int   `json:"never_freed"`
	Starved         int   `json:"starved"`
	RecoveryGraceNS int64 `json:"recovery_grace_ns"` // longest TTL + retry interval
	// NotJudged explains, per key, a recovery or never-freed check that
	// could not be judged.
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
	// the last record's time, the longest TTL asked, the longest gap
	// between a failed acquire's completion and its process's next
	end, maxTTL, retryGap int64
	notJudged             bool
}

// Check computes the liveness summary and the anomalies: the engine over
// h with this checker alone (see checkPart).
func (l *Liveness) Check(ctx context.Context, h history.History) Result {
	return checkPart(ctx, l, h)
}

// startStream sets the engine's liveness summary to these options.
func (l *Liveness) startStream(st *stream) { st.liveness = newLiveStream(l, st.tokens) }

// streamResult is the liveness summary's result (stream.result ends it first).
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
	invokedAfter *op   // the first acquire invoked after the last heal
	okAfter      int   // acquire oks returned after it
	lastOK       *op   // the latest-returning acquire ok
	fails        []*op // failed acquires invoked after lastOK returned, invoke order
	unknown      []*op // acquires with unknown outcome, invoke order
}

// recovery judges, per key, recovery after the last heal and a lock
// never freed, from the failures no possible holder explains.
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

// noRecovery judges recovery on key k: acquires invoked after the last
// heal and none succeeded, proven by an unexplained failure invoked after
// the heal (fails).
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

// releasedAt is the invoke of the first release ok of acquire a's lease.
func (r *livenessRun) releasedAt(a *op) (int64, bool) {
	if l := r.leases[a.Lease]; l != nil && l.released {
		return l.releasedAt, true
	}
	return 0, false
}

// neverFreed reports a key whose lock was never freed: at least three
// unexplained failures (fails) while no fault was in effect, over at least
// freeAfter until the end. The holder is the last acquire ok, or if it
// released, the unknown acquires invoked before the last failure that
// never released (none: the lock was freed, StuckWatch's matter).
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
				if _, freed := r.releasedAt(u); freed || !slices.ContainsFunc(fails, func(f *op) bool { return f.Call > u.Call }) {
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
	// a failure during a fault may be the fault's
	inFault := func(o *op) bool {
		return slices.ContainsFunc(r.windows, func(w Window) bool { return w.Contains(o.Call) })
	}
	if fails = slices.DeleteFunc(fails, inFault); len(fails) < 3 {
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

// possibleHolders are the possible holders of a key, from their invoke
// until released or their lease ran out (from the return, or completion
// of one with unknown outcome): its latest acquire ok and its acquires
// with unknown outcome. A failure whose span meets one is explained.
func (r *livenessRun) possibleHolders(p *keyProgress) [][2]int64 {
	var hs [][2]int64
	add := func(o *op, granted int64) { // to: its TTL and extends ran out, or it was released
		to, l := granted, r.leases[o.Lease]
		if o.TTL > 0 {
			to = satAdd(granted, o.TTL)
			if l != nil {
				to = max(to, l.extendedTo)
			}
		}
		if l != nil && l.released {
			to = min(to, l.releasedAt)
		}
		hs = append(hs, [2]int64{o.Call, to})
	}
	if p.lastOK != nil {
		add(p.lastOK, p.lastOK.Return)
	}
	for _, u := range p.unknown {
		add(u, u.Done)
	}
	return hs
}

// unexplained is the failures among fails that no possible holder in hs
// explains: their spans meet none of the holders'.
func unexplained(fails []*op, hs [][2]int64) []*op {
	return slices.DeleteFunc(slices.Clone(fails), func(f *op) bool {
		return f.Type != history.Fail || slices.ContainsFunc(hs, func(h [2]int64) bool {
			return h[0] <= f.Done && f.Call <= h[1]
		})
	})
}
