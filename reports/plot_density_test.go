package reports

import (
	"slices"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/lockstorm/lockstorm/checker"
)

// A run up to maxRawPoints operations keeps one glyph per operation on
// latency-raw.png and fencing.png; past it the crowded groups (more than
// maxExactGroup points) become density layers and the rare ones stay
// exact.
func TestDensityThreshold(t *testing.T) {
	if dense(maxRawPoints) || !dense(maxRawPoints+1) {
		t.Fatalf("dense flips at %d, want just above it", maxRawPoints)
	}
	for _, c := range []struct {
		name  string
		ops   int
		dense bool
	}{{"small", 5000, false}, {"big", 60000, true}} {
		h := bigHistory(c.ops, 8, 3)
		s := passOf(t, h, nil, 8)
		sp := clientOps(h)
		end := endTime(h)
		var heated []string
		for _, f := range s.ops.present(false) {
			hot, err := drawRawPanel(newPlot("", "", ""), rawPanelOf(s.ops, f, end, dense(len(sp)), make([]int, len(rawGroups))))
			if err != nil {
				t.Fatal(err)
			}
			heated = append(heated, hot...)
		}
		pts, title := s.fencePoints()
		_, _, fheated, err := fencingPlotFrom(title, pts, s.issued(), checker.FaultWindows(h), end)
		if err != nil {
			t.Fatal(err)
		}
		if !c.dense {
			if len(heated) > 0 || len(fheated) > 0 {
				t.Errorf("%s (%d ops): density layers %v / %v, want the exact plots", c.name, len(sp), heated, fheated)
			}
			continue
		}
		has := slices.Contains[[]string]
		if !has(heated, "ok") || has(heated, "info (unknown outcome)") {
			t.Errorf("%s: latency-raw density layers %v, want ok (crowded) and not info (rare)", c.name, heated)
		}
		if !has(fheated, "write accepted") || has(fheated, "write outcome unknown") {
			t.Errorf("%s: fencing density layers %v, want the accepted writes only", c.name, fheated)
		}
	}
}

// A density layer counts every point once, in a bounded number of cells,
// and its fullest cell is the most opaque.
func TestHeatLayerCounts(t *testing.T) {
	var xys plotter.XYs
	for i := range 100000 {
		xys = append(xys, plotter.XY{X: float64(i % 1000), Y: 1 + float64(i%97)})
	}
	xys = append(xys, plotter.XY{X: -5, Y: 1e9}) // outside: clamped to an edge cell
	hl := newHeat(xys, heatRows, 0, 1000, 1, 100, true, colOK)
	var sum int
	for _, n := range hl.counts {
		sum += int(n)
	}
	if sum != len(xys) || hl.n != len(xys) {
		t.Errorf("counted %d of %d points", sum, len(xys))
	}
	if k := hl.cells(); k == 0 || k > heatCols*hl.rows {
		t.Errorf("%d cells filled, want 1..%d", k, heatCols*heatRows)
	}
	if hl.shade(hl.max).A != 0xff || hl.shade(1).A >= hl.shade(hl.max).A {
		t.Errorf("shades: one point %d, fullest %d", hl.shade(1).A, hl.shade(hl.max).A)
	}
}

// Rate and quantile plots stay bucketed: however long the run, the number
// of buckets is bounded.
func TestBucketsBounded(t *testing.T) {
	for _, end := range []time.Duration{time.Second, time.Hour, 10 * time.Hour, 24 * 365 * time.Hour} {
		w := bucketWidth(int64(end))
		if n := int64(end)/w + 1; n > maxBuckets+1 {
			t.Errorf("run of %v: %d buckets of %v, want at most %d", end, n, time.Duration(w), maxBuckets+1)
		}
	}
}

// cells is how many cells hold at least one point.
func (hl *heatLayer) cells() int {
	k := 0
	for _, n := range hl.counts {
		if n > 0 {
			k++
		}
	}
	return k
}
