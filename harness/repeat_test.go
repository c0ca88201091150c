package harness

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Run 1 keeps the base seed; the others are fixed, distinct, non-zero
// and below 2^53+1; another base gives other seeds.
func TestRunSeed(t *testing.T) {
	for _, base := range []int64{1, 9, 42, 1 << 52} {
		if got := RunSeed(base, 1); got != base {
			t.Errorf("RunSeed(%d, 1) = %d, want the base", base, got)
		}
		seen := map[int64]int{}
		for i := 1; i <= 1000; i++ {
			s := RunSeed(base, i)
			if s != RunSeed(base, i) {
				t.Fatalf("RunSeed(%d, %d) not deterministic", base, i)
			}
			if s <= 0 || s > 1<<53+1 && i > 1 {
				t.Fatalf("RunSeed(%d, %d) = %d, out of range", base, i, s)
			}
			if j, dup := seen[s]; dup {
				t.Fatalf("runs %d and %d of base %d share seed %d", j, i, base, s)
			}
			seen[s] = i
		}
	}
	if RunSeed(9, 2) == RunSeed(10, 2) || RunSeed(9, 2) == 10 {
		t.Error("neighbouring bases give related seeds")
	}
	if RunSeed(9, 2) != 1990934411096011 {
		t.Errorf("RunSeed(9, 2) = %d: the documented derivation changed (stored campaigns no longer replay)", RunSeed(9, 2))
	}
}

func TestAggregate(t *testing.T) {
	V, I, U := checker.Valid, checker.Invalid, checker.Unknown
	for _, tc := range []struct {
		vs          []checker.Validity
		interrupted bool
		want        checker.Validity
	}{
		{[]checker.Validity{V, V, V}, false, V},
		{[]checker.Validity{V, U, V}, false, U},
		{[]checker.Validity{V, U, I}, false, I},
		{[]checker.Validity{I, V}, false, I},
		{[]checker.Validity{V, V}, true, U},
		{[]checker.Validity{V, I}, true, I},
		{nil, false, U},
		{nil, true, U},
	} {
		if got := analysis.Aggregate(tc.vs, tc.interrupted); got != tc.want {
			t.Errorf("analysis.Aggregate(%v, interrupted %v) = %v, want %v", tc.vs, tc.interrupted, got, tc.want)
		}
	}
}

// holderPausePlan pauses the lock holder 1.3 x ttl three times (catalogue
// row 1's faults, closer together): unsafe-del loses updates under it.
func holderPausePlan(ttl time.Duration) *nemesis.Plan {
	d := ttl * 13 / 10
	var steps []nemesis.Step
	for i := 0; i < 3; i++ {
		steps = append(steps, nemesis.Step{At: 500*time.Millisecond + time.Duration(i)*(d+500*time.Millisecond),
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: d})
	}
	p := nemesis.Scripted(time.Second, steps...)
	return &p
}

// --until-invalid stops at the first invalid run: a broken lock
// (unsafe-del) under holder pauses is invalid within a run or two, and no
// run starts after it. Each run's last progress snapshot counts
// violations exactly when the checkers found one of the kinds counted
// online.
func TestRepeatUntilInvalid(t *testing.T) {
	ttl := 500 * time.Millisecond
	var last []config.Progress
	plan := holderPausePlan(ttl)
	cfg := config.Config{Lock: "unsafe-del", Clients: 3, TTL: ttl, Plan: plan, TimeLimit: plan.End, MinCoverage: -1,
		Seed: 3, Store: t.TempDir(), OnProgress: func(p config.Progress) {
			if p.Done {
				last = append(last, p)
			}
		}}
	var seen []int
	c, err := Repeat(context.Background(), cfg, 4, true, Hooks{OnRun: func(i int, res *analysis.Result) { seen = append(seen, i) }})
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Runs)
	if n == 0 || c.Runs[n-1].Verdict.Valid != checker.Invalid {
		t.Fatalf("no invalid run in %d runs of unsafe-del under holder pauses", n)
	}
	for i, r := range c.Runs[:n-1] {
		if r.Verdict.Valid == checker.Invalid {
			t.Errorf("run %d was invalid but the campaign went on", i+1)
		}
	}
	if c.Verdict != checker.Invalid || c.StoppedEarly != (n < 4) || len(seen) != n || c.Interrupted {
		t.Errorf("campaign: verdict %v stoppedEarly %v, onRun calls %v, interrupted %v", c.Verdict, c.StoppedEarly, seen, c.Interrupted)
	}
	if len(last) != n {
		t.Fatalf("%d final progress snapshots for %d runs", len(last), n)
	}
	for i, r := range c.Runs {
		found := onlineKindsFound(r.Verdict)
		if (last[i].Violations > 0) != (found > 0) {
			t.Errorf("run %d: live counter %v, checkers found %d anomalies of the kinds counted online", i+1, last[i], found)
		}
		t.Logf("run %d (seed %d): %v, %d anomalies of the online kinds; live: %v", i+1, r.Config.Seed, r.Verdict.Valid, found, last[i])
	}
}

// onlineKinds are the kinds the live counter counts.
var onlineKinds = map[string]bool{analysis.LiveOverlap: true, analysis.LiveWriteAfterValidity: true,
	analysis.LiveLostUpdate: true, analysis.LiveStaleWrite: true, analysis.LiveAPIOverlap: true}

// onlineKindsFound counts the checkers' fatal anomalies of the kinds the
// live counter counts.
func onlineKindsFound(v checker.Result) int {
	n := 0
	for _, r := range append([]checker.Result{v}, v.Results...) {
		for _, a := range r.Anomalies {
			if a.Fatal && onlineKinds[a.Kind] {
				n++
			}
		}
	}
	return n
}
