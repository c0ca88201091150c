package reports

import (
	"math"
	"slices"
	"testing"
)

// 480 operations of 1..100 ms, scrambled, in two stretches 3 s apart:
// every point's p50 < p95 < p99 <= max, and no line crosses the gap.
func TestQuantilePointsDistinctAndNoLineAcrossEmpty(t *testing.T) {
	const ms = int64(1e6)
	n := 480
	b := &quantileBucketer{per: 120}
	for i := range n {
		call := int64(i) * 10 * ms
		if i >= n/2 {
			call += 3000 * ms // the gap: 2.39 s to 5.4 s
		}
		b.add(call, float64((i*37)%100+1)) // 1..100 ms, scrambled
	}
	b.flush()
	if len(b.points) != 4 {
		t.Fatalf("%d points, want 4 of 120 operations", len(b.points))
	}
	idx := map[string]int{}
	for i, q := range quantileLines {
		idx[q.name] = i
	}
	for j, p := range b.points {
		q := p.q
		if slices.ContainsFunc(q, math.IsNaN) {
			t.Errorf("point %d (%d ops): a series undefined: %v", j, p.n, q)
		}
		if !(q[idx["p50"]] < q[idx["p95"]] && q[idx["p95"]] < q[idx["p99"]] && q[idx["p99"]] <= q[idx["max"]]) || q[idx["p95"]] == q[idx["max"]] {
			t.Errorf("point %d: p50 %v, p95 %v, p99 %v, max %v: not distinct", j, q[idx["p50"]], q[idx["p95"]], q[idx["p99"]], q[idx["max"]])
		}
	}
	width := bucketWidth(b.points[len(b.points)-1].last)
	for i, q := range quantileLines {
		runs := quantileRuns(b.points, i, width)
		if len(runs) != 2 {
			t.Errorf("%s: %d runs, want 2 (broken at the stretch without operations)", q.name, len(runs))
		}
		for _, run := range runs {
			for k := 1; k < len(run); k++ {
				if run[k-1].X < 2.5 && run[k].X > 5.3 {
					t.Errorf("%s: a segment from %.2f s to %.2f s crosses the stretch without operations", q.name, run[k-1].X, run[k].X)
				}
			}
		}
	}
}

// With few operations per point, a quantile that would only repeat the
// max is left out of that point (and of the legend when no point has
// it): p99 needs 100 operations, p95 20.
func TestQuantileDefined(t *testing.T) {
	for _, tc := range []struct {
		q    float64
		n    int
		want bool
	}{{0.99, 3, false}, {0.95, 3, false}, {0.99, 99, false}, {0.99, 100, true}, {0.95, 19, false}, {0.95, 20, true}, {0.5, 1, true}, {1, 1, true}} {
		if got := quantileDefined(tc.q, tc.n); got != tc.want {
			t.Errorf("quantileDefined(%v, %d) = %v, want %v", tc.q, tc.n, got, tc.want)
		}
	}
	b := &quantileBucketer{per: 3}
	for i := range 3 {
		b.add(int64(i), float64(i+1))
	}
	b.flush()
	drawn := make([]bool, len(quantileLines))
	for i := range quantileLines {
		drawn[i] = len(quantileRuns(b.points, i, 1e9)) > 0
	}
	var names []string
	for _, it := range quantilesLegend(drawn) {
		names = append(names, it.Label)
	}
	if slices.Compare(names, []string{"max", "p50"}) != 0 {
		t.Errorf("3 ops per point: legend %v, want [max p50]", names)
	}
}
