package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// maxRawPoints is how many points latency-raw.png draws before it thins
// them: above it, each outcome keeps one point per cell of a grid about a
// pixel wide (so outliers and the shape survive, overplotting does not).
const maxRawPoints = 20000

// latencyRaw draws latency-raw.png: every operation's latency against its
// invoke time, by outcome, on a log axis, with fault windows shaded.
// Operations that never completed are drawn at a cap above the slowest
// completed one.
func latencyRaw(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	sp := spans(h)
	p := newPlot("Latency of every operation (by invoke time)", "time since start (s)", "latency (ms, log scale)")
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	legend := faultLegend(ws)
	if len(sp) == 0 {
		p.Y.Min, p.Y.Max, p.Y.Label.Text = 0, 1, "latency (ms)"
		p.Add(emptyNote{"no client operations in this history"})
		return renderPNG(p, legend, figWidth, figHeight)
	}
	var lo, hi float64 = math.Inf(1), 0
	for _, s := range sp {
		if s.Completed {
			l := math.Max(millis(s.Latency()), minLatencyMs)
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	if hi == 0 {
		lo, hi = 1, 1
	}
	capMs := hi * 3
	groups := []struct {
		name  string
		typ   history.Type
		open  bool // never completed
		glyph draw.GlyphStyle
	}{
		{"ok", history.OK, false, draw.GlyphStyle{Color: alpha(colOK, 0xb0), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}},
		{"fail", history.Fail, false, draw.GlyphStyle{Color: colFail, Radius: vg.Points(2.2), Shape: draw.CrossGlyph{}}},
		{"info (unknown outcome)", history.Info, false, draw.GlyphStyle{Color: colInfo, Radius: vg.Points(2.6), Shape: draw.TriangleGlyph{}}},
		{"info, never completed (drawn at cap)", history.Info, true, draw.GlyphStyle{Color: colInfo, Radius: vg.Points(3), Shape: draw.PyramidGlyph{}}},
	}
	thin := len(sp) > maxRawPoints
	for _, g := range groups {
		var xys plotter.XYs
		for _, s := range sp {
			if s.Type != g.typ || s.Completed == g.open {
				continue
			}
			y := capMs
			if s.Completed {
				y = math.Max(millis(s.Latency()), minLatencyMs)
			}
			xys = append(xys, plotter.XY{X: seconds(s.Call), Y: y})
		}
		if len(xys) == 0 {
			continue
		}
		if thin {
			xys = thinGrid(xys, p.X.Min, p.X.Max, lo, capMs)
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = g.glyph
		p.Add(sc)
		legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, countType(sp, g.typ, g.open)), Thumb: sc})
	}
	if thin {
		p.Title.Text += fmt.Sprintf(" — %d ops, thinned to one point per pixel cell", len(sp))
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo/1.5, capMs*1.5
	return renderPNG(p, legend, figWidth, figHeight)
}

// minLatencyMs is the floor of latencies on log axes (1 µs): a zero
// latency cannot be drawn on a log scale.
const minLatencyMs = 1e-3

// countType counts the spans of one outcome; open selects the ones that
// never completed.
func countType(sp []span, t history.Type, open bool) int {
	n := 0
	for _, s := range sp {
		if s.Type == t && s.Completed != open {
			n++
		}
	}
	return n
}

// thinGrid keeps the first point in each cell of a 1200 x 400 grid over
// the plot's range (y on a log scale).
func thinGrid(xys plotter.XYs, xmin, xmax, ymin, ymax float64) plotter.XYs {
	const nx, ny = 1200, 400
	seen := make(map[int32]bool, nx*4)
	lmin, lmax := math.Log(ymin), math.Log(ymax)
	out := xys[:0:0]
	for _, pt := range xys {
		cx := int32((pt.X - xmin) / (xmax - xmin + 1e-12) * nx)
		cy := int32((math.Log(pt.Y) - lmin) / (lmax - lmin + 1e-12) * ny)
		k := cx*(ny+1) + cy
		if !seen[k] {
			seen[k] = true
			out = append(out, pt)
		}
	}
	return out
}
