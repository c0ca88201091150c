package analysis

import (
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// missingHeal: only a run with a plan needs the pair; an invoke without
// its completion is not enough.
func TestMissingHeal(t *testing.T) {
	p := &nemesis.Plan{}
	inv := history.Op{Process: history.NemesisProcess, F: nemesis.FHeal, Type: history.Invoke}
	ok := inv
	ok.Type = history.OK
	for _, tc := range []struct {
		plan *nemesis.Plan
		h    history.History
		want bool
	}{
		{nil, nil, false},
		{p, nil, true},
		{p, history.History{inv}, true},
		{p, history.History{inv, ok}, false},
		{p, history.History{ok}, true},
	} {
		if got := missingHeal(tc.plan, tc.h) != ""; got != tc.want {
			t.Errorf("plan %v, %d records: missing=%v, want %v", tc.plan != nil, len(tc.h), got, tc.want)
		}
	}
}
