package sweep

import "testing"

// A sweep of one run per cell says "run", not "runs" in the table's
// partial-point note.
func TestOneRunSingular(t *testing.T) {
	if got := (PointRow{Agg: Agg{Runs: 0}, Ran: true}).InvalidOf(1); got != "0/0 invalid (0 of 1 run finished)" {
		t.Errorf("InvalidOf: %q", got)
	}
}
