package reports

import (
	"fmt"
	"image/color"
	"math"
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

// latencyQuantiles draws latency-quantiles.png from the run's
// operations: one panel per operation type present, each with its own
// log scale (so that the p99 of fast operations is not hidden under lock
// waits), whose points summarise consecutive completed operations (by
// invoke time, perPoint of them): their p50, p95, p99 and max, each
// series drawn where quantileDefined and joined only across stretches
// with operations (quantileRuns).
func latencyQuantiles(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	legend := faultLegend(ws)
	types := l.present(true)
	if len(types) == 0 {
		return emptyPanels(quantilesTitle, "latency (ms)", noCompleted, ws, end, legend)
	}
	var ps []*plot.Plot
	drawn := make([]bool, len(quantileLines))
	for i, f := range types {
		n := 0
		l.each(f, true, func(int, clientOp) { n++ })
		b := &quantileBucketer{per: perPoint(n)}
		l.each(f, true, func(_ int, s clientOp) { b.add(s.Call, latencyMs(s)) })
		b.flush()
		p, d, err := drawQuantiles(quantileTitle(f, n, b.per), b.points, ws, end, bucketWidth(end), i == len(types)-1)
		if err != nil {
			return nil, err
		}
		for j := range drawn {
			drawn[j] = drawn[j] || d[j]
		}
		ps = append(ps, p)
	}
	return renderStack(quantilesTitle, ps, nil, quantilesLegend(legend, drawn), figWidth, panelsHeight(len(ps)))
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
		l.each(f, true, func(_ int, s clientOp) {
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
	p := timePlot(newPanel(title, "ops/s", last), ws, end)
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
	p := timePlot(newPlot("", "time since start (s)", ylabel), ws, end)
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(emptyNote{note})
	return renderStack(title, []*plot.Plot{runAxis(p, end)}, nil, legend, figWidth, figHeight)
}
