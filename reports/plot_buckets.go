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

// latencyQuantiles draws latency-quantiles.png: p50, p95, p99 and max of
// the completed operations' latencies per time bucket (by invoke time).
func latencyQuantiles(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	p := newPlot(fmt.Sprintf("Latency quantiles per %v bucket (completed ops, by invoke time)", time.Duration(width)),
		"time since start (s)", "latency (ms, log scale)")
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	legend := faultLegend(ws)
	buckets := make([][]float64, end/width+1)
	for _, s := range spans(h) {
		if s.Completed {
			b := bucketOf(s.Call, width, int64(len(buckets)))
			buckets[b] = append(buckets[b], math.Max(millis(s.Latency()), minLatencyMs))
		}
	}
	qs := []struct {
		name string
		q    float64
		col  color.Color
	}{
		{"max", 1, color.Gray{Y: 0xb0}}, // drawn first: p99 often equals it
		{"p99", 0.99, colFail},
		{"p95", 0.95, colInfo},
		{"p50", 0.50, colOK},
	}
	lines := make([]plotter.XYs, len(qs))
	lo, hi := math.Inf(1), 0.0
	for b, ls := range buckets {
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		x := seconds(int64(b)*width + width/2)
		for i, q := range qs {
			v := quantile(ls, q.q)
			lines[i] = append(lines[i], plotter.XY{X: x, Y: v})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		p.Y.Min, p.Y.Max, p.Y.Label.Text = 0, 1, "latency (ms)"
		p.Add(emptyNote{"no completed operations in this history"})
		return renderPNG(p, legend, figWidth, figHeight)
	}
	for i, q := range qs {
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
		legend = append(legend, legendItem{Label: q.name, Thumb: l})
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	return renderPNG(p, legend, figWidth, figHeight)
}

// quantile returns the q-quantile (nearest rank) of sorted xs.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// rate draws rate.png: completions per second per outcome and time bucket
// (by completion time). Operations that never completed are not counted.
func rate(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	p := newPlot(fmt.Sprintf("Throughput: completions per second by outcome (%v buckets)", time.Duration(width)),
		"time since start (s)", "ops/s")
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	legend := faultLegend(ws)
	n := end/width + 1
	counts := map[history.Type][]float64{history.OK: make([]float64, n), history.Fail: make([]float64, n), history.Info: make([]float64, n)}
	total := 0
	for _, s := range spans(h) {
		if s.Completed {
			if c := counts[s.Type]; c != nil {
				c[bucketOf(s.Done, width, n)]++
			}
			total++
		}
	}
	p.Y.Min = 0
	if total == 0 {
		p.Y.Max = 1
		p.Add(emptyNote{"no completed operations in this history"})
		return renderPNG(p, legend, figWidth, figHeight)
	}
	perSec := 1e9 / float64(width)
	for _, o := range []struct {
		t   history.Type
		col color.Color
	}{{history.OK, colOK}, {history.Fail, colFail}, {history.Info, colInfo}} {
		var xys plotter.XYs
		sum := 0.0
		for b, c := range counts[o.t] {
			xys = append(xys, plotter.XY{X: seconds(int64(b) * width), Y: c * perSec})
			sum += c
		}
		xys = append(xys, plotter.XY{X: seconds(n * width), Y: xys[len(xys)-1].Y})
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = draw.LineStyle{Color: o.col, Width: vg.Points(1.6)}
		p.Add(l)
		legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", o.t, int(sum)), Thumb: l})
	}
	return renderPNG(p, legend, figWidth, figHeight)
}
