package campaign

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
)

func TestSelectTable(t *testing.T) {
	cells := []Cell{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, tc := range []struct {
		only    []string
		want    string // cell names, comma-joined
		errWith string
	}{
		{only: nil, want: "a,b,c"},
		{only: []string{"c", "a"}, want: "c,a"},
		{only: []string{"b"}, want: "b"},
		{only: []string{"a", "x"}, errWith: `no cell "x"; the cells are a, b, c`},
	} {
		got, err := Select(cells, tc.only)
		if tc.errWith != "" {
			if err == nil || !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tc.errWith) {
				t.Errorf("Select(%v): %v, want an ErrConfig with %q", tc.only, err, tc.errWith)
			}
			continue
		}
		var names []string
		for _, c := range got {
			names = append(names, c.Name)
		}
		if err != nil || strings.Join(names, ",") != tc.want {
			t.Errorf("Select(%v) = %v, %v; want %s", tc.only, names, err, tc.want)
		}
	}
}

func TestExpectTable(t *testing.T) {
	I, V, U := checker.Invalid, checker.Valid, checker.Unknown
	for _, tc := range []struct {
		want, got, holds checker.Validity
	}{
		{V, V, V}, {V, I, I}, {V, U, U},
		{I, I, V}, {I, V, I}, {I, U, U},
		{U, U, V}, // a run expected unknown that is unknown holds
	} {
		res := &analysis.Result{Verdict: checker.Result{Valid: tc.got, Error: "why"}}
		if h, seen := Expect(tc.want).Judge(res); h != tc.holds || seen == "" {
			t.Errorf("expect %v, verdict %v: holds %v (%q), want %v", tc.want, tc.got, h, seen, tc.holds)
		}
	}
}

func TestOutcomeHoldsTable(t *testing.T) {
	I, V, U := checker.Invalid, checker.Valid, checker.Unknown
	j := func(vs ...checker.Validity) []Judged {
		var out []Judged
		for _, v := range vs {
			out = append(out, Judged{Holds: v})
		}
		return out
	}
	for _, tc := range []struct {
		o    Outcome
		want checker.Validity
	}{
		{Outcome{}, V},
		{Outcome{Claims: j(V, V)}, V},
		{Outcome{Claims: j(V, U)}, U},
		{Outcome{Claims: j(U, I, V)}, I},
		{Outcome{Claims: j(V), Error: "did not start"}, U},
	} {
		if got := tc.o.Holds(); got != tc.want {
			t.Errorf("%+v.Holds() = %v, want %v", tc.o, got, tc.want)
		}
	}
}

func TestItemsOrderTable(t *testing.T) {
	cells := []Cell{{Name: "a"}, {Name: "b"}}
	for _, tc := range []struct {
		seeds  int
		seedOf func(int) int64
		want   string
	}{
		{2, nil, "0:a/1 1:a/2 2:b/1 3:b/2"},
		{1, func(k int) int64 { return int64(100 + k) }, "0:a/101 1:b/101"},
		{0, nil, ""},
	} {
		var parts []string
		for _, it := range items(cells, tc.seeds, tc.seedOf) {
			parts = append(parts, fmt.Sprintf("%d:%s/%d", it.i, it.cell.Name, it.seed))
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("items(%d seeds) = %q, want %q", tc.seeds, got, tc.want)
		}
	}
}
