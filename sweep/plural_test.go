package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
)

// A sweep of one run per cell says "run", not "runs": in its JUnit
// messages and in the table's partial-point note.
func TestOneRunSingular(t *testing.T) {
	row := PointRow{Point: Point{TTL: time.Second, Renew: "none"}, Ran: true}
	invalid := CellResult{Cell: Cell{Run: 1}, Dir: "d1", Metrics: Metrics{Verdict: checker.Invalid}}
	if f := pointCase(row, []CellResult{invalid}, 1).Failure; f == nil || !strings.HasPrefix(f.Message, "1/1 run invalid: d1") {
		t.Errorf("one invalid run of one: %+v", f)
	}
	valid := invalid
	valid.Verdict = checker.Valid
	if out := pointCase(row, []CellResult{valid}, 1).SystemOut; !strings.HasPrefix(out, "0/1 run invalid\n") {
		t.Errorf("one valid run of one: %q", out)
	}
	if e := pointCase(row, []CellResult{valid}, 2).Error; e == nil || e.Message != "only 1 of 2 runs finished" {
		t.Errorf("one of two: %+v", e)
	}
	if got := (PointRow{Agg: Agg{Runs: 0}, Ran: true}).InvalidOf(1); got != "0/0 invalid (0 of 1 run finished)" {
		t.Errorf("InvalidOf: %q", got)
	}
}
