package checker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// anyVerdict marks a liveness case whose verdict is not checked.
const anyVerdict Validity = 2

// fails adds n failed acquires of key k (TTL ttl ms, none if 0) by
// processes from p on, the i-th over [t0+i·every, t0+i·every+d].
func fails(b *historytest.Builder, n int, k string, p int, t0, every, d, ttl int64) *historytest.Builder {
	for i := int64(0); i < int64(n); i++ {
		var mods []historytest.Mod
		if ttl > 0 {
			mods = append(mods, historytest.TTL(ttl))
		}
		b.Op(t0+every*i, t0+every*i+d, history.Fail, p+int(i), "acquire", k, "", mods...)
	}
	return b
}

// cronKey is a cron tick's key "k-1" (TTL 300 ms) tried for 150 ms,
// first by process 1 (outcome first), then 4 times by processes
// 2 and 3, which fail; afterwards only key "k-2" is asked for, with
// success, until 4 s.
func cronKey(first history.Type) history.History {
	b := historytest.New().Op(10, 150, first, 1, "acquire", "k-1", "a", historytest.TTL(300))
	for i := int64(0); i < 4; i++ {
		b.Op(20+30*i, 40+30*i, history.Fail, 2+int(i%2), "acquire", "k-1", "", historytest.TTL(300))
	}
	for i := int64(1); i <= 4; i++ {
		b.Op(1000*i, 1000*i+5, history.OK, 4, "acquire", "k-2", "x", historytest.TTL(300))
		b.Op(1000*i+10, 1000*i+15, history.OK, 4, "release", "k-2", "x")
	}
	return b.Sorted()
}

// heldThenRefused is a history in which process 0 takes key k with a
// 100 ms TTL and 5 acquires fail over the next 5 s, a partition starting
// at 50 ms when partitioned (it stays open).
func heldThenRefused(partitioned bool) *historytest.Builder {
	b := historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100))
	if partitioned {
		b.Nemesis(50, history.Info, "start", "partition")
	}
	return fails(b, 5, "k", 1, 200, 1000, 10, 100)
}

// anomalyOf is r's first anomaly of kind, if any.
func anomalyOf(r Result, kind string) Anomaly {
	for _, a := range r.Anomalies {
		if a.Kind == kind {
			return a
		}
	}
	return Anomaly{}
}

// livenessCase is a history and what a liveness check finds in it: its
// verdict (anyVerdict: not checked), exact counts of some kinds, and more.
type livenessCase struct {
	name  string
	l     *Liveness
	h     history.History
	want  Validity
	kinds map[string]int
	check func(Result) bool
}

func checkLivenessCases(t *testing.T, cases []livenessCase) {
	for _, tc := range cases {
		if err := Validate(tc.h); err != nil {
			t.Fatalf("%s: test history invalid: %v", tc.name, err)
		}
		if r := tc.l.Check(context.Background(), tc.h); !resultIs(r, tc.want, tc.kinds, tc.check) {
			t.Errorf("%s: %s", tc.name, r)
		}
	}
}

func livenessDetails(r Result) LivenessDetails { return r.Details.(LivenessDetails) }

// TestLivenessCases: recovery, FIFO, starvation, a history cut short.
func TestLivenessCases(t *testing.T) {
	req, details := &Liveness{RequireRecovery: true}, livenessDetails
	// a holder of a no-TTL lock stops answering: nobody gets it again
	noTTL := fails(historytest.New().Nemesis(0, history.Info, "start", "partition").
		Op(1, 2, history.OK, 0, "acquire", "k", "a").
		Nemesis(3, history.Info, "stop", "partition"), 5, "k", 1, 10, 1000, 890, 0).Sorted()
	// FIFO: a waits from 0, b invoked at 10 gets it at 20 while a waits on
	fifo := historytest.New().
		Op(0, 50, history.OK, 0, "acquire", "k", "a").
		Op(10, 20, history.OK, 1, "acquire", "k", "b").
		Op(21, 22, history.OK, 1, "release", "k", "b").Sorted()
	// a history ending shortly after the last heal: the holder's TTL has
	// not even run out (short), or TTL + retry interval has (long)
	cutShort := func(endMs int64) history.History {
		b := historytest.New().Nemesis(0, history.Info, "start", "partition").
			Op(1, 2, history.OK, 0, "acquire", "k", "a", historytest.TTL(1000)).
			Nemesis(100, history.Info, "stop", "partition")
		return fails(b, int((endMs-51)/100), "k", 2, 150, 100, 10, 1000).Sorted()
	}
	checkLivenessCases(t, []livenessCase{
		{"no TTL, not required", &Liveness{}, noTTL, Valid, map[string]int{"lock-never-freed": 1, "no-recovery": 1}, nil},
		{"no TTL, required", req, noTTL, Invalid, nil, func(r Result) bool {
			d := details(r)
			return d.Acquires.OK == 1 && d.Acquires.Fail == 5 && d.SuccessRate == 1.0/6 && len(d.Windows) == 1 && d.Windows[0].OK == 1
		}},
		{"fifo not counted without Fair", &Liveness{}, fifo, anyVerdict, nil, func(r Result) bool { return details(r).FIFOViolations == 0 }},
		{"fifo counted with Fair", &Liveness{Fair: true}, fifo, Valid, nil, func(r Result) bool { return details(r).FIFOViolations == 1 }},
		{"fifo required", &Liveness{RequireFIFO: true}, fifo, Invalid, nil, nil},
		{"fifo within the margin", &Liveness{RequireFIFO: true, FIFOMargin: 20 * time.Millisecond}, fifo, Valid, nil, nil},
		{"starvation", &Liveness{MaxWait: 40 * time.Millisecond}, fifo, Invalid, map[string]int{"starvation": 1}, nil},
		{"wait percentiles", &Liveness{}, fifo, anyVerdict, nil, func(r Result) bool {
			p := details(r).Wait
			return p.N == 2 && p.Max == 50*ms && p.P50 == 10*ms
		}},
		{"cut short after the heal", req, cutShort(400), Unknown, map[string]int{"no-recovery": 0}, func(r Result) bool { return strings.Contains(r.Error, "recovery not judged") }},
		{"cut short, not required", &Liveness{}, cutShort(400), Valid, nil, func(r Result) bool { return len(details(r).NotJudged) == 1 }},
		{"long enough after the heal", &Liveness{RequireRecovery: true, RetryInterval: 100 * time.Millisecond}, cutShort(1400), Invalid, map[string]int{"no-recovery": 1}, nil},
		{"a retry interval leaving too little time", &Liveness{RequireRecovery: true, RetryInterval: 500 * time.Millisecond}, cutShort(1400), Unknown, nil, nil},
	})
}

// TestLivenessNeverFreed: failures a possible holder or a fault explains
// prove no lock never freed.
func TestLivenessNeverFreed(t *testing.T) {
	req, details := &Liveness{RequireRecovery: true}, livenessDetails
	// failures while a (possibly extended) lease is alive are the lock
	// working; after it ran out, never freed
	afterLease := func(b *historytest.Builder, t0, every int64) history.History {
		return fails(b, 4, "k", 1, t0, every, 10, 100).Op(1500, 1501, history.OK, 9, "acquire", "other", "z", historytest.TTL(100)).Sorted()
	}
	tick := fails(historytest.New().Op(0, 1, history.OK, 0, "acquire", "tick-1", "a", historytest.TTL(100)), 4, "tick-1", 1, 10, 20, 10, 100).
		Op(990, 1000, history.OK, 9, "acquire", "tick-2", "z", historytest.TTL(100)).Sorted()
	extended := afterLease(historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
		Op(90, 91, history.OK, 7, "extend", "k", "a", historytest.TTL(1000)), 200, 100)
	dead := afterLease(historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)), 200, 100)
	// a holder that released normally; then an acquire with unknown outcome
	// (ops 4,5) may hold it
	released := func(b *historytest.Builder) history.History {
		return fails(b.Op(0, 1, history.OK, 2, "acquire", "k", "a").Op(5, 6, history.OK, 2, "release", "k", "a"), 5, "k", 10, 1000, 1000, 900, 0).Sorted()
	}
	healed := heldThenRefused(true).Nemesis(4300, history.Info, "stop", "partition").Op(4400, 4410, history.Fail, 9, "acquire", "k", "", historytest.TTL(100))
	quiet := heldThenRefused(false).Op(4400, 4410, history.Fail, 9, "acquire", "k", "", historytest.TTL(100))
	checkLivenessCases(t, []livenessCase{
		{"failures inside the lease", req, tick, anyVerdict, map[string]int{"lock-never-freed": 0}, nil},
		{"failures inside an extended lease", req, extended, anyVerdict, map[string]int{"lock-never-freed": 0}, nil},
		{"failures after the lease ran out", req, dead, Invalid, map[string]int{"lock-never-freed": 1}, nil},
		// stuck at the third failure's completion (op 9, 3.9 s after the
		// acquire ok, op 1: past the 3 s span); the first failure is op 4
		{"released, then stuck", req, released(historytest.New()), Invalid, map[string]int{"lock-never-freed": 0, "lock-stuck": 1}, func(r Result) bool {
			a := anomalyOf(r, "lock-stuck")
			return opsAre(a.Ops, 1, 4, 9) && strings.Contains(a.Text, "released it")
		}},
		{"released, then taken by an unknown acquire", req, released(historytest.New().Op(7, 8, history.Info, 3, "acquire", "k", "b")), Invalid, map[string]int{"lock-never-freed": 1}, func(r Result) bool {
			a := anomalyOf(r, "lock-never-freed")
			return opsAre(a.Ops, 4, 5, 14, 15) && !strings.Contains(a.Text, "last taken by process 2") && strings.Contains(a.Text, "process 3 (op 4)")
		}},
		{"failures in a fault still open", req, heldThenRefused(true).Sorted(), Unknown, map[string]int{"lock-never-freed": 0}, nil},
		{"failures in a fault healed just before the end", req, healed.Sorted(), anyVerdict, map[string]int{"lock-never-freed": 0}, nil},
		{"the same failures with no fault", req, quiet.Sorted(), anyVerdict, map[string]int{"lock-never-freed": 1}, nil},
		// the grace is the longest TTL plus the longest pause between a
		// failed acquire and the same process's next one
		{"recovery grace from the history", &Liveness{}, historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(2, 3, history.Fail, 1, "acquire", "k", "", historytest.TTL(100)).
			Op(303, 304, history.Fail, 1, "acquire", "k", "", historytest.TTL(100)).Sorted(), anyVerdict, nil,
			func(r Result) bool { return details(r).RecoveryGraceNS == 400*ms }},
		// an acquire with unknown outcome may have set the key: failures
		// beside it, and then no client asking, prove nothing
		{"unknown acquire beside the failures", req, cronKey(history.Info), Valid, map[string]int{"no-recovery": 0, "lock-never-freed": 0, "lock-stuck": 0}, nil},
		{"nobody could hold the key", req, cronKey(history.Fail), Invalid, map[string]int{"no-recovery": 1, "lock-never-freed": 1}, nil},
	})
}

// The live watch declares a key stuck only on failures it can prove: while
// an acquire invoked before a failure completed is still in flight, it may
// turn out to have held the key. A slow acquire ok (the lock granted at
// once, the reply 2 s late) or one that ends unknown clears the failures
// beside it; one that fails leaves them proven, and the anomaly names it:
// the evidence is complete only at its completion.
func TestStuckWaitsForAcquiresInFlight(t *testing.T) {
	slow := func(outcome history.Type) history.History {
		b := historytest.New().Add(0, history.Invoke, 1, "acquire", "k", "", historytest.TTL(100))
		for i := int64(0); i < 6; i++ {
			b.Op(10+300*i, 20+300*i, history.Fail, 2+int(i%2), "acquire", "k", "", historytest.TTL(100))
		}
		b.Add(2000, outcome, 1, "acquire", "k", "a", historytest.TTL(100))
		return b.Sorted()
	}
	for _, typ := range []history.Type{history.OK, history.Info} {
		w := NewStuckWatch(0)
		for _, o := range slow(typ) {
			if a, ok := w.Add(&o); ok {
				t.Fatalf("acquire in flight that ends %s: declared stuck at op %d: %s", typ, o.Index, a.Text)
			}
		}
	}
	w := NewStuckWatch(0)
	declared, ops := int64(-1), []int64(nil)
	for _, o := range slow(history.Fail) {
		if a, ok := w.Add(&o); ok {
			declared, ops = o.Index, a.Ops
		}
	}
	// the first failure's invoke (op 1), the last failure's completion
	// (op 12) and the record that proved them (op 13)
	if declared != 13 || !opsAre(ops, 1, 12, 13) {
		t.Fatalf("acquire in flight that fails: declared at op %d naming ops %v, want 13 naming [1 12 13]", declared, ops)
	}
}

// A fault is in effect until its stop's last record (see WindowPairer.add):
// acquires that failed between the stop's invoke and its completion prove
// no stuck lock, the same ones after the completion do.
func TestStuckWaitsForTheStopToComplete(t *testing.T) {
	for _, done := range []int64{1000, 2} {
		b := historytest.New().Nemesis(0, history.Info, history.FStart, "partition").
			Nemesis(1, history.Invoke, history.FStop, "partition").Nemesis(done, history.OK, history.FStop, "partition")
		for i := int64(1); i <= 6; i++ {
			b.Op(100*i, 100*i+10, history.Fail, 1, "acquire", "k", "", historytest.TTL(100))
		}
		w := NewStuckWatch(0)
		for _, o := range b.Sorted() {
			w.Add(&o)
		}
		if found := len(w.Found()); found != map[int64]int{1000: 0, 2: 1}[done] {
			t.Errorf("stop completed at %d ms: %d lock-stuck anomalies", done, found)
		}
	}
}
