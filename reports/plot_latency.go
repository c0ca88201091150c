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

// maxRawPoints is the most client operations for which latency-raw.png and
// fencing.png draw one glyph per operation (today's exact plots); above
// it they become density plots (see dense and heatLayer).
const maxRawPoints = 20000

// rawGroup is one outcome's points on latency-raw.png.
type rawGroup struct {
	name  string
	typ   history.Type
	open  bool // never completed
	glyph draw.GlyphStyle
}

// rawGroups are latency-raw.png's outcomes, in drawing order.
var rawGroups = []rawGroup{
	{"ok", history.OK, false, draw.GlyphStyle{Color: alpha(colOK, 0xb0), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}},
	{"fail", history.Fail, false, draw.GlyphStyle{Color: colFail, Radius: vg.Points(2.2), Shape: draw.CrossGlyph{}}},
	{"info (unknown outcome)", history.Info, false, draw.GlyphStyle{Color: colInfo, Radius: vg.Points(2.6), Shape: draw.TriangleGlyph{}}},
	{"info, never completed (drawn at cap)", history.Info, true, draw.GlyphStyle{Color: colInfo, Radius: vg.Points(3), Shape: draw.PyramidGlyph{}}},
}

// latencyRaw draws latency-raw.png: every operation's latency against its
// invoke time, by outcome, on a log axis, with fault windows shaded; one
// panel per operation type present (acquire, release, extend, read,
// write, ...), each with its own y range, so that fast operations are not
// squashed under slow lock waits. Operations that never completed are
// drawn at a cap above their type's slowest completed one.
func latencyRaw(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	sp := spans(h)
	title := "Latency of every operation by type (at invoke time; each panel its own scale)"
	legend := faultLegend(ws)
	if len(sp) == 0 {
		p := newPlot("", "time since start (s)", "latency (ms)")
		p.X.Min, p.X.Max = 0, xMax(end)
		p.Add(faultBands{ws}, lightGrid())
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(emptyNote{"no client operations in this history"})
		return renderPanels("Latency of every operation", []*plot.Plot{p}, legend, figWidth, figHeight)
	}
	thin := dense(len(sp))
	if thin {
		title += fmt.Sprintf(" — %d ops: crowded outcomes as density", len(sp))
	}
	types, groups := opTypes(sp), byOp(sp)
	var ps []*plot.Plot
	heated := map[string]bool{} // outcomes drawn as density in some panel
	for i, f := range types {
		p, hot, err := latencyRawPanel(f, groups[f], ws, end, thin, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		for _, g := range hot {
			heated[g] = true
		}
		ps = append(ps, p)
	}
	for _, g := range rawGroups {
		if n := countType(sp, g.typ, g.open); n > 0 {
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, n), Thumb: glyphThumb(g.glyph)})
			if heated[g.name] {
				legend = append(legend, legendItem{Label: g.name + ": ops per cell (darker = more)", Thumb: heatThumb{opaque(g.glyph.Color)}})
			}
		}
	}
	return renderPanels(title, ps, legend, figWidth, panelsHeight(len(ps)))
}

// latencyRawPanel is one operation type's panel of latency-raw.png. When
// dense, an outcome with more than maxExactGroup operations is drawn as a
// density layer (heated names those outcomes) and the others point by
// point on top.
func latencyRawPanel(f string, sp []span, ws []checker.Window, end int64, dense, last bool) (p *plot.Plot, heated []string, err error) {
	var lo, hi float64 = math.Inf(1), 0
	for _, s := range sp {
		if s.Completed {
			l := math.Max(millis(s.Latency()), minLatencyMs)
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	d := rawPanel{f: f, ops: len(sp), lo: lo, hi: hi}
	ymin, ymax, capMs := d.yRange()
	for _, g := range rawGroups {
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
		var l rawLayer
		if dense && len(xys) > maxExactGroup {
			l.heat = newHeat(xys, heatRows, 0, xMax(end), ymin, ymax, true, opaque(g.glyph.Color))
		} else {
			l.xys = xys
		}
		d.groups = append(d.groups, l)
	}
	return drawRawPanel(d, ws, end, last)
}

// rawPanel is one operation type's panel of latency-raw.png as data:
// its operation count, the range of its completed latencies (ms; hi 0:
// none completed), and per rawGroups entry its points or density layer.
type rawPanel struct {
	f      string
	ops    int
	lo, hi float64
	groups []rawLayer
}

// rawLayer is one outcome's points of a panel: point by point (xys) or
// as a density layer (heat, when set).
type rawLayer struct {
	xys  plotter.XYs
	heat *heatLayer
}

// yRange is the panel's y axis range and the cap at which operations
// that never completed are drawn, ms.
func (d rawPanel) yRange() (ymin, ymax, capMs float64) {
	lo, hi := d.lo, d.hi
	if hi == 0 {
		lo, hi = 1, 1
	}
	capMs = hi * 3
	return lo / 1.5, capMs * 1.5, capMs
}

// drawRawPanel draws a panel of latency-raw.png from its data; heated
// names the outcomes drawn as density.
func drawRawPanel(d rawPanel, ws []checker.Window, end int64, last bool) (p *plot.Plot, heated []string, err error) {
	p = newPanel(fmt.Sprintf("%s (%d ops)", d.f, d.ops), "", last)
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	p.Y.Min, p.Y.Max, _ = d.yRange()
	var points []plot.Plotter // exact glyphs, drawn over every density layer
	for i, g := range rawGroups {
		l := d.groups[i]
		if l.heat != nil {
			if l.heat.n > 0 {
				p.Add(l.heat)
				heated = append(heated, g.name)
			}
			continue
		}
		if len(l.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(l.xys)
		if err != nil {
			return nil, nil, err
		}
		sc.GlyphStyle = g.glyph
		points = append(points, sc)
	}
	p.Add(points...)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = msLogTicks{}
	return p, heated, nil
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
