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

// maxBuckets bounds the number of time buckets of a plot, whatever the
// history's times (a malformed history may span centuries).
const maxBuckets = 600

// bucketWidth picks a round bucket width giving about 60 buckets over a
// run of length end (ns), at least 100 ms, and never more than maxBuckets
// buckets.
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

// bucketOf is the bucket of time t among n buckets of width width; times
// outside the run (negative, or past its end in a malformed history) go
// to the first or last bucket.
func bucketOf(t, width, n int64) int64 {
	return min(max(t/width, 0), n-1)
}

// quantileLines are latency-quantiles.png's lines, in drawing order.
var quantileLines = []struct {
	name string
	q    float64
	col  color.Color
}{
	{"max", 1, color.Gray{Y: 0xb0}}, // drawn first: p99 often equals it
	{"p99", 0.99, colFail},
	{"p95", 0.95, colInfo},
	{"p50", 0.50, colOK},
}

// latencyQuantiles draws latency-quantiles.png from the run's
// operations: p50, p95, p99 and max of the completed operations'
// latencies per time bucket (by invoke time), one panel per operation
// type present, each with its own log scale, so that the p99 of fast
// operations is not hidden under lock waits.
func latencyQuantiles(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	title := fmt.Sprintf("Latency quantiles per %v bucket, by operation type (completed ops, by invoke time)", time.Duration(width))
	legend := faultLegend(ws)
	types := l.present(true)
	if len(types) == 0 {
		return emptyPanels(title, "latency (ms)", noCompleted, ws, end, legend)
	}
	var ps []*plot.Plot
	for i, f := range types {
		p, err := quantilePanel(l, f, ws, end, width, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	for _, q := range quantileLines {
		w := vg.Points(1.5)
		if q.q == 1 {
			w = vg.Points(4)
		}
		legend = append(legend, legendItem{Label: q.name, Thumb: lineThumb(draw.LineStyle{Color: q.col, Width: w})})
	}
	return renderStack(title, ps, nil, legend, figWidth, panelsHeight(len(ps)))
}

// quantilePanel is operation type f's panel of latency-quantiles.png:
// the quantiles of its completed operations' exact latencies per bucket
// of width ns.
func quantilePanel(l *opLog, f string, ws []checker.Window, end, width int64, last bool) (*plot.Plot, error) {
	buckets := make([][]float64, end/width+1)
	n := 0
	l.each(f, true, func(_ int, s span) {
		b := bucketOf(s.Call, width, int64(len(buckets)))
		buckets[b] = append(buckets[b], latencyMs(s))
		n++
	})
	return drawQuantiles(fmt.Sprintf("%s (%d completed)", f, n), buckets, ws, end, width, last)
}

// drawQuantiles draws a panel of latency-quantiles.png titled title from
// the latencies (ms) of each bucket of width ns.
func drawQuantiles(title string, buckets [][]float64, ws []checker.Window, end, width int64, last bool) (*plot.Plot, error) {
	p := newPanel(title, "", last)
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	lines := make([]plotter.XYs, len(quantileLines))
	lo, hi := math.Inf(1), 0.0
	for b, ls := range buckets {
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		x := seconds(int64(b)*width + width/2)
		for i, q := range quantileLines {
			v := quantile(ls, q.q)
			lines[i] = append(lines[i], plotter.XY{X: x, Y: v})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for i, q := range quantileLines {
		l, pts, err := plotter.NewLinePoints(lines[i])
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: q.col, Width: vg.Points(1.5)}
		if q.q == 1 {
			l.LineStyle.Width = vg.Points(4)
		}
		pts.GlyphStyle = draw.GlyphStyle{Color: q.col, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		p.Add(l, pts)
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = msLogTicks{}
	p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	return runAxis(p, end), nil
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

// rate draws rate.png from the run's operations: completions per second
// per outcome and time bucket (by completion time), one panel per
// operation type present, each with its own y scale; an outcome a type
// never had gets no line. Operations that never completed are not
// counted.
func rate(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	title := fmt.Sprintf("Throughput: completions per second by outcome and operation type (%v buckets)", time.Duration(width))
	legend := faultLegend(ws)
	types := l.present(true)
	if len(types) == 0 {
		return emptyPanels(title, "ops/s", noCompleted, ws, end, legend)
	}
	var ps []*plot.Plot
	outcomes := map[history.Type]int{}
	for i, f := range types {
		counts, n := newRateCounts(end, width), 0
		l.each(f, true, func(_ int, s span) {
			counts.add(s.Type, s.Done)
			outcomes[s.Type]++
			n++
		})
		p, err := drawRatePanel(fmt.Sprintf("%s (%d completed)", f, n), counts, ws, end, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	for _, o := range rateOutcomes {
		if n := outcomes[o.t]; n > 0 {
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", o.t, n), Thumb: lineThumb(draw.LineStyle{Color: o.col, Width: vg.Points(1.6)})})
		}
	}
	return renderStack(title, ps, nil, legend, figWidth, panelsHeight(len(ps)))
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

// add counts a completion of type t at time done (ns).
func (rc rateCounts) add(t history.Type, done int64) {
	if c := rc.by[t]; c != nil {
		c[bucketOf(done, rc.width, rc.n)]++
	}
}

// drawRatePanel draws a panel of rate.png titled title from its counts.
func drawRatePanel(title string, rc rateCounts, ws []checker.Window, end int64, last bool) (*plot.Plot, error) {
	p := newPanel(title, "ops/s", last)
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
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
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = draw.LineStyle{Color: o.col, Width: vg.Points(1.6)}
		p.Add(l)
	}
	return runAxis(p, end), nil
}

// noCompleted is the note of a bucketed figure without completed
// operations.
const noCompleted = "no completed operations in this history"

// emptyPanels is a figure's single panel, saying note, for a history
// with nothing to draw.
func emptyPanels(title, ylabel, note string, ws []checker.Window, end int64, legend []legendItem) ([]byte, error) {
	p := newPlot("", "time since start (s)", ylabel)
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(emptyNote{note})
	return renderStack(title, []*plot.Plot{runAxis(p, end)}, nil, legend, figWidth, figHeight)
}
