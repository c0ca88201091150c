package lockstorm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Repeat from Go: two runs, each with its own seed, folder and report;
// the hooks see the base seed first, then each run in order with its
// report written.
func TestRepeat(t *testing.T) {
	var seen []string
	c, err := lockstorm.Repeat(context.Background(), lockstorm.Config{Lock: "single", Clients: 2,
		TTL: 200 * time.Millisecond, TimeLimit: time.Second, Seed: 21, Store: t.TempDir()}, 2, false,
		lockstorm.OnBaseSeed(func(base int64) { seen = append(seen, fmt.Sprint("base ", base)) }),
		lockstorm.OnRun(func(i int, res *lockstorm.Result, reportErr error) {
			seen = append(seen, fmt.Sprint("run ", i, " ", res.Config.Seed, " ", reportErr))
		}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 2 || c.Verdict != checker.Valid || c.Base != 21 {
		t.Fatalf("%d runs, verdict %v, base %d", len(c.Runs), c.Verdict, c.Base)
	}
	a, b := c.Runs[0], c.Runs[1]
	if a.Config.Seed != 21 || b.Config.Seed == 21 || a.Dir == b.Dir {
		t.Errorf("seeds %d, %d; folders %s, %s", a.Config.Seed, b.Config.Seed, a.Dir, b.Dir)
	}
	for _, r := range c.Runs {
		if _, err := os.Stat(filepath.Join(r.Dir, "index.html")); err != nil {
			t.Errorf("%s: no report", r.Dir)
		}
	}
	if want := fmt.Sprintf("[base 21 run 1 21 <nil> run 2 %d <nil>]", c.Runs[1].Config.Seed); fmt.Sprint(seen) != want {
		t.Errorf("hooks saw %v, want %s", seen, want)
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

// --until-invalid stops at the first invalid run of a broken lock under
// holder pauses; each run's last progress snapshot counts violations
// exactly when the checkers found one of the kinds counted online.
func TestRepeatUntilInvalid(t *testing.T) {
	ttl := 500 * time.Millisecond
	var last []lockstorm.Progress
	plan := holderPausePlan(ttl)
	cfg := lockstorm.Config{Lock: "unsafe-del", Clients: 3, TTL: ttl, Plan: plan, TimeLimit: plan.End, MinCoverage: -1,
		Seed: 3, Store: t.TempDir(), OnProgress: func(p lockstorm.Progress) {
			if p.Done {
				last = append(last, p)
			}
		}}
	var seen []int
	c, err := lockstorm.Repeat(context.Background(), cfg, 4, true, lockstorm.OnRun(func(i int, res *lockstorm.Result, _ error) { seen = append(seen, i) }))
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
