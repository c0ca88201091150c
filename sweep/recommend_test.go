package sweep

import (
	"strings"
	"testing"
	"time"
)

// grid3 is the hand-made grid of these tests: TTL 200ms and 1s, renewal
// none and ttl/3, pauses 0, 300ms and 1.5s (listed out of order: the
// recommendation sorts them), fencing off and on.
func grid3(fencing ...bool) Grid {
	none, _ := ParseRenew("none")
	third, _ := ParseRenew("ttl/3")
	return Grid{TTLs: []time.Duration{time.Second, 200 * ms}, Renews: []Renew{none, third},
		Pauses: []time.Duration{300 * ms, 0, 1500 * ms}, Fencing: fencing}
}

// fill gives every point of g the outcome verdict(p) over 3 runs:
// "valid", "invalid" (k=2 of 3), "unknown" (1 of 3 unknown, none invalid),
// "" (not run).
func fill(g Grid, verdict func(Point) string) map[Point]Agg {
	agg := map[Point]Agg{}
	for _, c := range g.Cells(1) {
		p := c.Point()
		switch verdict(p) {
		case "valid":
			agg[p] = Agg{Runs: 3}
		case "invalid":
			agg[p] = Agg{Runs: 3, Invalid: 2}
		case "unknown":
			agg[p] = Agg{Runs: 3, Unknown: 1}
		case "partial":
			agg[p] = Agg{Runs: 2}
		}
	}
	return agg
}

// realistic is what the default sweep measures: no renewal fails at 200ms
// even without pauses, every unfenced setting fails at a 1.5s pause, the
// 200ms renewed lock fails at 300ms, the fenced lock holds at 1s.
func realistic(p Point) string {
	switch {
	case p.Fenced && p.TTL == time.Second:
		return "valid"
	case p.Fenced:
		return "invalid"
	case p.Pause == 1500*ms:
		return "invalid"
	case p.TTL == 200*ms && p.Renew == "none":
		return "invalid"
	case p.TTL == 200*ms && p.Pause > 0:
		return "invalid"
	}
	return "valid"
}

func TestRecommend(t *testing.T) {
	cases := []struct {
		name    string
		grid    Grid
		verdict func(Point) string
		want    string
	}{
		{"realistic", grid3(false, true), realistic,
			"smallest TTL with 0 of 3 invalid up to pauses of 300ms: 1s, without renewal; above 300ms only fencing stays valid (the fenced lock with TTL 1s: 0 of 3 invalid up to pauses of 1.5s, the longest measured)"},
		{"all valid", grid3(false, true), func(Point) string { return "valid" },
			"smallest TTL with 0 of 3 invalid up to pauses of 1.5s, the longest measured: 200ms, without renewal; fencing did no better (the fenced lock with TTL 200ms: 0 of 3 invalid up to pauses of 1.5s, the longest measured)"},
		{"all invalid", grid3(false, true), func(Point) string { return "invalid" },
			"no TTL or renewal measured stayed at 0 of 3 invalid, not even without pauses; the fenced lock did not stay at 0 of 3 invalid either, not even without pauses"},
		{"no fencing column", grid3(false), realistic,
			"smallest TTL with 0 of 3 invalid up to pauses of 300ms: 1s, without renewal; nothing measured held above 300ms; fencing was not measured (--fencing-axis on)"},
		{"only fencing valid", grid3(false, true), func(p Point) string {
			if p.Fenced {
				return "valid"
			}
			return "invalid"
		}, "no TTL or renewal measured stayed at 0 of 3 invalid, not even without pauses; only fencing stayed valid: the fenced lock with TTL 200ms, 0 of 3 invalid up to pauses of 1.5s, the longest measured"},
		{"fencing only", grid3(true), realistic,
			"fenced lock: smallest TTL with 0 of 3 invalid up to pauses of 1.5s, the longest measured: 1s"},
		{"renewal needed", grid3(false), func(p Point) string {
			if p.Renew == "none" && p.Pause > 0 {
				return "invalid"
			}
			return "valid"
		}, "smallest TTL with 0 of 3 invalid up to pauses of 1.5s, the longest measured: 200ms, with renewal every ttl/3; fencing was not measured (--fencing-axis on)"},
		{"nothing run", grid3(false, true), func(Point) string { return "" },
			"no cell finished yet: nothing measured, nothing to recommend"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Recommend(c.grid, 3, fill(c.grid, c.verdict)).Text
			if got != c.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, c.want)
			}
		})
	}
}

// Unknown (or missing) runs are neither valid nor invalid: a point with
// one unknown run stops its setting's reach, and the line says the data
// is insufficient, naming the point, when measuring it could change the
// answer.
func TestRecommendUnknownCells(t *testing.T) {
	g := grid3(false, true)
	// The 200ms renewed lock at 300ms had an unknown run: it might have
	// tied the 1s lock with a smaller TTL.
	rec := Recommend(g, 3, fill(g, func(p Point) string {
		if p.TTL == 200*ms && p.Renew == "ttl/3" && !p.Fenced && p.Pause == 300*ms {
			return "unknown"
		}
		return realistic(p)
	}))
	if rec.Best == nil || rec.Best.TTL != time.Second || len(rec.Insufficient) != 1 {
		t.Fatalf("best %+v, insufficient %v", rec.Best, rec.Insufficient)
	}
	want := "; data insufficient: 1 cell with unknown or missing runs may change this (ttl 200ms, renew ttl/3, pause 300ms: 1 of 3 runs unknown)"
	if !strings.HasSuffix(rec.Text, want) || !strings.HasPrefix(rec.Text, "smallest TTL with 0 of 3 invalid up to pauses of 300ms: 1s, without renewal") {
		t.Errorf("text %q", rec.Text)
	}

	// Every point unknown: nothing is recommended, and the line says why.
	rec = Recommend(g, 3, fill(g, func(Point) string { return "unknown" }))
	if rec.Best != nil || rec.Fenced != nil || !strings.HasPrefix(rec.Text, "no TTL or renewal measured stayed at 0 of 3 invalid") ||
		!strings.Contains(rec.Text, "data insufficient: 6 cells") || !strings.Contains(rec.Text, "3 more") {
		t.Errorf("all unknown: %q", rec.Text)
	}

	// An interrupted sweep: a point with 2 of 3 runs is not clean either.
	rec = Recommend(g, 3, fill(g, func(p Point) string {
		if p.Fenced && p.TTL == time.Second && p.Pause == 1500*ms {
			return "partial"
		}
		return realistic(p)
	}))
	if rec.Fenced == nil || rec.Fenced.Index != 1 || !strings.Contains(rec.Text, "ttl 1s, fenced, pause 1.5s: 2 of 3 runs finished") {
		t.Errorf("partial: fenced %+v, %q", rec.Fenced, rec.Text)
	}

	// An unknown point beyond a setting's first failure changes nothing.
	rec = Recommend(g, 3, fill(g, func(p Point) string {
		if p.TTL == 200*ms && p.Renew == "none" && !p.Fenced && p.Pause == 1500*ms {
			return "unknown"
		}
		return realistic(p)
	}))
	if len(rec.Insufficient) != 0 || strings.Contains(rec.Text, "insufficient") {
		t.Errorf("unknown behind a failure: %q", rec.Text)
	}
}
