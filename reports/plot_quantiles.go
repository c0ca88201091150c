package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// quantileLines are latency-quantiles.png's series, in drawing order,
// their glyphs nested so that equal values stay visible.
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

// Operations per point (perPoint): p99PerPoint when minQuantilePoints
// such fit, else minPerPoint; more past maxQuantilePoints points.
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
// rank from the max (p50 and max always, p95 from 20, p99 from 100).
func quantileDefined(q float64, n int) bool {
	return q == 1 || q == 0.5 || int(math.Ceil(q*float64(n))) < n
}

// quantilePoint summarises n operations invoked from first to last (ns):
// quantiles (ms) in quantileLines' order, NaN where not defined.
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

// drawQuantiles draws a panel of latency-quantiles.png from its points
// into p, each series as glyphs joined within its quantileRuns; drawn[i]
// is set when series i has a point.
func drawQuantiles(p *plot.Plot, points []quantilePoint, width int64, drawn []bool) error {
	lo, hi := math.Inf(1), 0.0
	for i, q := range quantileLines {
		for _, run := range quantileRuns(points, i, width) {
			drawn[i] = true
			l, pts, err := plotter.NewLinePoints(run)
			if err != nil {
				return err
			}
			l.LineStyle = draw.LineStyle{Color: alpha(opaque(q.col), 0x90), Width: vg.Points(0.8)}
			pts.GlyphStyle = draw.GlyphStyle{Color: q.col, Radius: q.r, Shape: q.glyph}
			p.Add(l, pts)
			for _, xy := range run {
				lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			}
		}
	}
	msLogAxis(p)
	if hi > 0 {
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	}
	return nil
}

// quantilesLegend is the legend of the series drawn in some panel
// (drawn: by quantileLines index).
func quantilesLegend(drawn []bool) (legend []legendItem) {
	for i, q := range quantileLines {
		if drawn[i] {
			legend = append(legend, legendItem{Label: q.name, Thumb: glyphThumb(draw.GlyphStyle{Color: q.col, Radius: q.r, Shape: q.glyph})})
		}
	}
	return legend
}

// quantilesTitle is latency-quantiles.png's title.
const quantilesTitle = "Latency quantiles by operation type: each point summarises consecutive completed operations (by invoke time)"

// maxBuckets bounds the number of time buckets of a plot, whatever the
// history's times (a malformed history may span centuries).
const maxBuckets = 600

// bucketWidth is a round width of about 60 buckets over [0, end] ns, at
// least 100 ms, at most maxBuckets buckets.
func bucketWidth(end int64) int64 {
	end = max(end, 0)
	if w := int64(10 * time.Minute); end/w >= maxBuckets {
		return end/(maxBuckets-1) + 1
	}
	steps := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond,
		500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
		15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute}
	for _, s := range steps {
		if int64(s)*60 >= end {
			return int64(s)
		}
	}
	return int64(steps[len(steps)-1])
}

// latencyQuantiles draws latency-quantiles.png: per operation type a
// panel of its own log scale, each point the quantiles of perPoint
// consecutive completed operations.
func latencyQuantiles(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	drawn := make([]bool, len(quantileLines))
	legend := func() []legendItem { return quantilesLegend(drawn) }
	return typePanels(quantilesTitle, "latency (ms)", noCompleted, l.present(true), ws, end, legend, func(p *plot.Plot, f string) error {
		n := 0
		l.each(f, true, func(int, clientOp) { n++ })
		b := &quantileBucketer{per: perPoint(n)}
		l.each(f, true, func(_ int, s clientOp) { b.add(s.Call, latencyMs(s)) })
		b.flush()
		p.Title.Text = fmt.Sprintf("%s (%d completed, %d per point)", f, n, b.per)
		return drawQuantiles(p, b.points, bucketWidth(end), drawn)
	})
}

// lineThumb draws a line style as a legend thumbnail.
type lineThumb draw.LineStyle

// Thumbnail draws a horizontal line across the middle of c.
func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// quantile returns the q-quantile (nearest rank) of sorted xs.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// rateOutcomes are rate.png's lines.
var rateOutcomes = []struct {
	t   history.Type
	col color.Color
}{{history.OK, colOK}, {history.Fail, colFail}, {history.Info, colInfo}}

// rate draws rate.png: per operation type a panel of completions per
// second by outcome and time bucket.
func rate(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	title := fmt.Sprintf("Throughput: completions per second by outcome and operation type (%v buckets)", time.Duration(width))
	outcomes := map[history.Type]int{}
	legend := func() (legend []legendItem) {
		for _, o := range rateOutcomes {
			if n := outcomes[o.t]; n > 0 {
				legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", o.t, n), Thumb: lineThumb(draw.LineStyle{Color: o.col, Width: vg.Points(1.6)})})
			}
		}
		return legend
	}
	return typePanels(title, "ops/s", noCompleted, l.present(true), ws, end, legend, func(p *plot.Plot, f string) error {
		counts, n := newRateCounts(end, width), 0
		l.each(f, true, func(_ int, s clientOp) {
			counts.add(s.Type, s.Done)
			outcomes[s.Type]++
			n++
		})
		p.Title.Text, p.Y.Label.Text = fmt.Sprintf("%s (%d completed)", f, n), "ops/s"
		return drawRatePanel(p, counts)
	})
}

// rateCounts are one operation type's completions per outcome (ok,
// fail, info) and time bucket of width ns.
type rateCounts struct {
	width int64
	n     int64
	by    map[history.Type][]float64
}

func newRateCounts(end, width int64) rateCounts {
	n := end/width + 1
	return rateCounts{width: width, n: n, by: map[history.Type][]float64{history.OK: make([]float64, n), history.Fail: make([]float64, n), history.Info: make([]float64, n)}}
}

// add counts a completion of type t at done (ns), clamped to the run.
func (rc rateCounts) add(t history.Type, done int64) {
	if c := rc.by[t]; c != nil {
		c[min(max(done/rc.width, 0), rc.n-1)]++
	}
}

// drawRatePanel draws a panel of rate.png from its counts into p.
func drawRatePanel(p *plot.Plot, rc rateCounts) error {
	counts, width, n := rc.by, rc.width, rc.n
	p.Y.Min = 0
	perSec := 1e9 / float64(width)
	for _, o := range rateOutcomes {
		var xys plotter.XYs
		any := false
		for b, c := range counts[o.t] {
			xys = append(xys, plotter.XY{X: seconds(int64(b) * width), Y: c * perSec})
			any = any || c > 0
		}
		if !any {
			continue // a flat zero line would hide the others' zeros
		}
		xys = append(xys, plotter.XY{X: seconds(n * width), Y: xys[len(xys)-1].Y})
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = draw.LineStyle{Color: o.col, Width: vg.Points(1.6)}
		p.Add(l)
	}
	return nil
}

// noCompleted is the note of a bucketed figure without completed
// operations.
const noCompleted = "no completed operations in this history"

// typePanels draws a panel per type (fill draws f's into p, a time plot),
// over the fault legend and legend(); without types, one saying empty.
func typePanels(title, ylabel, empty string, types []string, ws []checker.Window, end int64, legend func() []legendItem, fill func(p *plot.Plot, f string) error) ([]byte, error) {
	if len(types) == 0 {
		p := timePlot(newPlot("", "time since start (s)", ylabel), ws, end)
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(emptyNote{empty})
		return renderStack(title, []*plot.Plot{runAxis(p, end)}, nil, faultLegend(ws), figWidth, figHeight)
	}
	var ps []*plot.Plot
	for i, f := range types {
		p := timePlot(newPanel(i == len(types)-1), ws, end)
		if err := fill(p, f); err != nil {
			return nil, err
		}
		ps = append(ps, runAxis(p, end))
	}
	return renderStack(title, ps, nil, append(faultLegend(ws), legend()...), figWidth, panelsHeight(len(ps)))
}
