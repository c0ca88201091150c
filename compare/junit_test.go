package compare

import (
	"errors"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
)

// The comparison's JUnit holds both runs as suites and a claim case that
// passes when the comparison shows what fencing changes, fails when it
// does not, and is an error when it did not finish.
func TestComparisonJUnit(t *testing.T) {
	side := func(name string, v checker.Validity) Side {
		return Side{Result: &analysis.Result{Config: config.Config{Name: name}, Verdict: checker.Result{Valid: v,
			Results: []checker.Result{{Name: "lock", Valid: v, Seconds: 0.1}}}}}
	}
	c := &Comparison{Spec: Spec{Lock: "fenced"}, Unfenced: side("u", checker.Invalid), Fenced: side("f", checker.Valid),
		Started: time.Now(), Elapsed: 3 * time.Second, unfencedOK: true, fencedOK: true}
	claim := func(runErr error) int {
		d := c.JUnit(runErr)
		if n := len(d.Suites); n != 3 || d.Suites[0].Name != "u" || d.Suites[1].Name != "f" || d.Suites[2].Name != "compare" {
			t.Fatalf("suites %+v", d.Suites)
		}
		s := d.Suites[2]
		if s.Timestamp == "" || s.Cases[0].Time != 3 {
			t.Errorf("claim suite: timestamp %q, time %v", s.Timestamp, s.Cases[0].Time)
		}
		return s.Failures*10 + s.Errors
	}
	if got := claim(nil); got != 0 {
		t.Errorf("a comparison that shows it: failures*10+errors = %d, want 0", got)
	}
	c.fencedOK = false
	if got := claim(nil); got != 10 {
		t.Errorf("a comparison that does not show it: %d, want one failure", got)
	}
	if got := claim(errors.New("redis gone")); got != 1 {
		t.Errorf("a comparison that failed: %d, want one error", got)
	}
}
