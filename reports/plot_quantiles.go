package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
)

// quantileLines are latency-quantiles.png's series, in drawing order,
// each with its own glyph, so that two series of equal value stay visible
// (the ring of max around the square of p99 around the triangle of p95).
var quantileLines = []struct {
	name  string
	q     float64
	col   color.Color
	glyph draw.GlyphDrawer
	r     vg.Length // glyph radius
}{
	{"max", 1, color.Gray{Y: 0x80}, draw.RingGlyph{}, vg.Points(5)},
	{"p99", 0.99, colFail, draw.SquareGlyph{}, vg.Points(3.4)},
	{"p95", 0.95, colInfo, draw.TriangleGlyph{}, vg.Points(2.6)},
	{"p50", 0.50, colOK, draw.CircleGlyph{}, vg.Points(2)},
}

// Operations per point of latency-quantiles.png (perPoint): at least
// p99PerPoint when the panel has enough for minQuantilePoints such
// points, else minPerPoint; more past maxQuantilePoints points.
const (
	minPerPoint       = 20
	p99PerPoint       = 100
	minQuantilePoints = 4
	maxQuantilePoints = 60
)

// perPoint is how many operations of a panel of n a point summarises.
func perPoint(n int) int {
	least := minPerPoint
	if n >= minQuantilePoints*p99PerPoint {
		least = p99PerPoint
	}
	return max(least, (n+maxQuantilePoints-1)/maxQuantilePoints)
}

// quantileDefined reports whether the q-quantile of n values differs in
// rank from their maximum (nearest rank), so is worth drawing: the
// median and the max always, p95 from 20 values, p99 from 100.
func quantileDefined(q float64, n int) bool {
	return q == 1 || q == 0.5 || int(math.Ceil(q*float64(n))) < n
}

// quantilePoint is one point of a panel: the invoke times (ns) of its
// first and last operation, how many it summarises, and its quantiles
// (ms) in quantileLines' order, NaN where not quantileDefined.
type quantilePoint struct {
	first, last int64
	n           int
	q           []float64
}

// x is where the point is drawn: the middle of its operations' invoke
// times, s.
func (p quantilePoint) x() float64 { return seconds(p.first + (p.last-p.first)/2) }

// quantileBucketer cuts a panel's operations, fed in invoke order, into
// points of per operations (the last one may hold fewer).
type quantileBucketer struct {
	per         int
	ms          []float64
	first, last int64
	points      []quantilePoint
}

// add takes the next operation: its invoke time (ns) and latency (ms).
func (b *quantileBucketer) add(call int64, ms float64) {
	if len(b.ms) == 0 {
		b.first = call
	}
	b.last = call
	b.ms = append(b.ms, ms)
	if len(b.ms) == b.per {
		b.flush()
	}
}

// flush closes the point being filled, if any.
func (b *quantileBucketer) flush() {
	if len(b.ms) == 0 {
		return
	}
	slices.Sort(b.ms)
	p := quantilePoint{first: b.first, last: b.last, n: len(b.ms)}
	for _, l := range quantileLines {
		v := math.NaN()
		if quantileDefined(l.q, p.n) {
			v = quantile(b.ms, l.q)
		}
		p.q = append(p.q, v)
	}
	b.points = append(b.points, p)
	b.ms = b.ms[:0]
}

// quantileRuns are the polylines of series i over points, broken by a gap
// of width ns or more without an invoke and where the series is undefined.
func quantileRuns(points []quantilePoint, i int, width int64) []plotter.XYs {
	var runs []plotter.XYs
	var cur plotter.XYs
	for j, p := range points {
		v := p.q[i]
		if math.IsNaN(v) || j > 0 && p.first-points[j-1].last >= width {
			if len(cur) > 0 {
				runs = append(runs, cur)
			}
			cur = nil
		}
		if !math.IsNaN(v) {
			cur = append(cur, plotter.XY{X: p.x(), Y: v})
		}
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	return runs
}

// drawQuantiles draws a panel of latency-quantiles.png from its points,
// each series as glyphs joined within its quantileRuns; drawn reports
// which series (by index) have a point.
func drawQuantiles(title string, points []quantilePoint, ws []checker.Window, end, width int64, last bool) (p *plot.Plot, drawn []bool, err error) {
	p = timePlot(newPanel(title, "", last), ws, end)
	drawn = make([]bool, len(quantileLines))
	lo, hi := math.Inf(1), 0.0
	for i, q := range quantileLines {
		for _, run := range quantileRuns(points, i, width) {
			drawn[i] = true
			l, pts, err := plotter.NewLinePoints(run)
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle = draw.LineStyle{Color: alpha(opaque(q.col), 0x90), Width: vg.Points(0.8)}
			pts.GlyphStyle = draw.GlyphStyle{Color: q.col, Radius: q.r, Shape: q.glyph}
			p.Add(l, pts)
			for _, xy := range run {
				lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			}
		}
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = msLogTicks{}
	if hi > 0 {
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	}
	return runAxis(p, end), drawn, nil
}

// quantilesLegend is the legend of the series drawn in some panel
// (drawn: by quantileLines index), after the fault legend.
func quantilesLegend(legend []legendItem, drawn []bool) []legendItem {
	for i, q := range quantileLines {
		if drawn[i] {
			legend = append(legend, legendItem{Label: q.name, Thumb: glyphThumb(draw.GlyphStyle{Color: q.col, Radius: q.r, Shape: q.glyph})})
		}
	}
	return legend
}

// quantilesTitle is latency-quantiles.png's title.
const quantilesTitle = "Latency quantiles by operation type: each point summarises consecutive completed operations (by invoke time)"

// quantileTitle is a panel's title: the operation type, its completed
// operations and how many a point summarises.
func quantileTitle(f string, n, per int) string {
	return fmt.Sprintf("%s (%d completed, %d per point)", f, n, per)
}
