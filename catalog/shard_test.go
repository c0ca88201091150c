package catalog

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// The shards of a selection are disjoint and together the selection, in
// its order.
func TestPickPartitions(t *testing.T) {
	rows, _ := Select(Options{Quick: true})
	var got []int
	for k := 0; k < 3; k++ {
		owned, index := Pick(rows, shard.Shard{K: k, N: 3})
		for j, i := range index {
			if i%3 != k || owned[j].N != rows[i].N {
				t.Fatalf("shard %d/3 owns row %d at %d", k, owned[j].N, i)
			}
			got = append(got, i)
		}
	}
	if len(got) != len(rows) {
		t.Fatalf("shards own %d rows, selection has %d", len(got), len(rows))
	}
	if all, _ := Pick(rows, shard.Shard{}); len(all) != len(rows) {
		t.Errorf("the whole work picked %d of %d rows", len(all), len(rows))
	}
}

// A kept outcome gives back the line and JUnit outcome of the original.
func TestKeepRoundTrip(t *testing.T) {
	row := Rows()[0]
	for _, oc := range []Outcome{
		{Row: row, Agree: true, Observed: []string{"verdict invalid"}, Elapsed: 7 * time.Second, Detected: time.Second, Dir: "d",
			Result: &analysis.Result{Dir: "d", Verdict: checker.Result{Valid: checker.Invalid}}},
		{Row: row, Observed: []string{"error: boom"}, Detected: -1, Dir: "d", Err: errors.New("boom")},
	} {
		back := Keep(oc).Outcome(row, "d")
		if Line(back) != Line(oc) {
			t.Errorf("line %q, want %q", Line(back), Line(oc))
		}
		a, b := JUnit([]Row{row}, []Outcome{oc}, 1, time.Time{}), JUnit([]Row{row}, []Outcome{back}, 1, time.Time{})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("JUnit %+v, want %+v", b, a)
		}
	}
}
