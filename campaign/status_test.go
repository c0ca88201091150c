package campaign

import (
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
)

// A repeat's status (lockstorm.Repeat's verdict, `run --runs`' exit):
// invalid if any run is invalid, else unknown if any is unknown or the
// campaign was cut short (or ran nothing), else valid.
func TestStatusOfRepeat(t *testing.T) {
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
		{nil, true, U},
	} {
		rep := &Report{Interrupted: tc.interrupted}
		for _, v := range tc.vs {
			o := Outcome{}
			judge(&o, &Cell{Claims: []Claim{Expect(V)}}, &analysis.Result{Verdict: checker.Result{Valid: v}})
			rep.Outcomes = append(rep.Outcomes, o)
		}
		if got := rep.Status(); got != tc.want {
			t.Errorf("runs %v, interrupted %v: status %v, want %v", tc.vs, tc.interrupted, got, tc.want)
		}
	}
}
