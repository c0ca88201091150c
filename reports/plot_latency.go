package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// maxRawPoints is the most client operations latency-raw.png and
// fencing.png draw glyph by glyph, not as density (heatLayer).
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

// latencyRaw draws latency-raw.png: each operation's latency at its
// invoke time by outcome, a panel per type; the never completed at a cap.
func latencyRaw(l *opLog, ws []checker.Window, end int64) ([]byte, error) {
	title, thin := "Latency of every operation", dense(l.len())
	if l.len() > 0 {
		title += " by type (at invoke time; each panel its own scale)"
	}
	if thin {
		title += fmt.Sprintf(" — %d ops: crowded outcomes as density", l.len())
	}
	heated := map[string]bool{} // outcomes drawn as density in some panel
	counts := make([]int, len(rawGroups))
	legend := func() (legend []legendItem) {
		for i, g := range rawGroups {
			if n := counts[i]; n > 0 {
				legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, n), Thumb: glyphThumb(g.glyph)})
				if heated[g.name] {
					legend = append(legend, legendItem{Label: g.name + ": ops per cell (darker = more)", Thumb: heatThumb{opaque(g.glyph.Color)}})
				}
			}
		}
		return legend
	}
	return typePanels(title, "latency (ms)", "no client operations in this history", l.present(false), ws, end, legend, func(p *plot.Plot, f string) error {
		hot, err := drawRawPanel(p, rawPanelOf(l, f, end, thin, counts))
		for _, g := range hot {
			heated[g] = true
		}
		return err
	})
}

// rawPanelOf is type f's panel data, outcomes of over maxExactGroup as
// density when dense; counts gains its operations per rawGroups entry.
func rawPanelOf(l *opLog, f string, end int64, dense bool, counts []int) rawPanel {
	d := rawPanel{f: f, lo: math.Inf(1), groups: make([]rawLayer, len(rawGroups))}
	n := make([]int, len(rawGroups))
	l.each(f, false, func(_ int, s clientOp) {
		d.ops++
		if g := groupOf(s); g >= 0 {
			n[g]++
		}
		if s.Completed {
			lat := latencyMs(s)
			d.lo, d.hi = math.Min(d.lo, lat), math.Max(d.hi, lat)
		}
	})
	ymin, ymax, capMs := d.yRange()
	for g, k := range n {
		counts[g] += k
		if dense && k > maxExactGroup {
			d.groups[g].heat = newHeat(nil, heatRows, 0, xMax(end), ymin, ymax, true, opaque(rawGroups[g].glyph.Color))
		} else if k > 0 {
			d.groups[g].xys = make(plotter.XYs, 0, k)
		}
	}
	l.each(f, false, func(_ int, s clientOp) {
		g := groupOf(s)
		if g < 0 {
			return
		}
		y := capMs
		if s.Completed {
			y = latencyMs(s)
		}
		if h := d.groups[g].heat; h != nil {
			h.add(seconds(s.Call), y)
		} else {
			d.groups[g].xys = append(d.groups[g].xys, plotter.XY{X: seconds(s.Call), Y: y})
		}
	})
	return d
}

// groupOf is the index into rawGroups of a clientOp's outcome, -1 for none.
func groupOf(s clientOp) int {
	for i, g := range rawGroups {
		if s.Type == g.typ && s.Completed != g.open {
			return i
		}
	}
	return -1
}

// latencyMs is a completed clientOp's latency on the plots' log axes, ms.
func latencyMs(s clientOp) float64 { return max(millis(s.Latency()), minLatencyMs) }

// rawPanel is a panel of latency-raw.png: its completed latencies' range
// (ms; hi 0: none), per rawGroups entry its points or density.
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

// drawRawPanel draws a panel of latency-raw.png from its data into p;
// heated names the outcomes drawn as density.
func drawRawPanel(p *plot.Plot, d rawPanel) (heated []string, err error) {
	p.Title.Text = fmt.Sprintf("%s (%d ops)", d.f, d.ops)
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
			return nil, err
		}
		sc.GlyphStyle = g.glyph
		points = append(points, sc)
	}
	p.Add(points...)
	msLogAxis(p)
	return heated, nil
}

// minLatencyMs is the floor of latencies on log axes (1 µs): a zero
// latency cannot be drawn on a log scale.
const minLatencyMs = 1e-3

// Density plots draw groups of more than maxExactGroup points as a 2-D
// histogram of heatCols x heatRows (fenceHeatRows) cells.
const (
	// maxExactGroup is the largest group of points a dense plot still
	// draws point by point.
	maxExactGroup = 2000
	heatCols      = 240
	heatRows      = 60
	fenceHeatRows = 150
)

// dense reports whether a run of n client operations gets density plots
// rather than one glyph per operation.
func dense(n int) bool { return n > maxRawPoints }

// heatLayer is a 2-D histogram, cells log-spaced up y when logY, filled
// with col at an opacity growing with the log of their count.
type heatLayer struct {
	counts     []int32 // rows rows of heatCols, row 0 at ymin
	rows       int
	xmin, xmax float64
	y0, y1     float64 // ymin and ymax, their logs when logY
	logY       bool
	col        color.NRGBA
	max        int32
	n          int // points counted
}

// newHeat counts xys into a heatLayer over the given range (more can be
// added); points outside it are clamped to the edge cells.
func newHeat(xys plotter.XYs, rows int, xmin, xmax, ymin, ymax float64, logY bool, col color.NRGBA) *heatLayer {
	hl := &heatLayer{counts: make([]int32, heatCols*rows), rows: rows, xmin: xmin, xmax: xmax, y0: ymin, y1: ymax, logY: logY, col: col}
	if logY {
		hl.y0, hl.y1 = math.Log(ymin), math.Log(ymax)
	}
	for _, pt := range xys {
		hl.add(pt.X, pt.Y)
	}
	return hl
}

// add counts the point (x, y).
func (hl *heatLayer) add(x, y float64) {
	i := hl.cell(x, y)
	hl.counts[i]++
	hl.max = max(hl.max, hl.counts[i])
	hl.n++
}

// cell is the index into counts of the cell holding (x, y).
func (hl *heatLayer) cell(x, y float64) int {
	if hl.logY {
		y = math.Log(y)
	}
	cx := int((x - hl.xmin) / (hl.xmax - hl.xmin + 1e-12) * heatCols)
	cy := int((y - hl.y0) / (hl.y1 - hl.y0 + 1e-12) * float64(hl.rows))
	cx, cy = min(max(cx, 0), heatCols-1), min(max(cy, 0), hl.rows-1)
	return cy*heatCols + cx
}

// yAt is the lower edge of cell row j in data units.
func (hl *heatLayer) yAt(j int) float64 {
	y := hl.y0 + float64(j)/float64(hl.rows)*(hl.y1-hl.y0)
	if hl.logY {
		return math.Exp(y)
	}
	return y
}

// shade is the colour of a cell holding n points.
func (hl *heatLayer) shade(n int32) color.NRGBA {
	f := 1.0
	if hl.max > 1 {
		f = math.Log1p(float64(n)) / math.Log1p(float64(hl.max))
	}
	return alpha(hl.col, uint8(0x60+f*(0xff-0x60)))
}

// Plot fills the cells.
func (hl *heatLayer) Plot(c draw.Canvas, p *plot.Plot) {
	w := (hl.xmax - hl.xmin) / heatCols
	for j := range hl.rows {
		y0, y1 := hl.yAt(j), hl.yAt(j+1)
		for i := range heatCols {
			if n := hl.counts[j*heatCols+i]; n > 0 {
				x0 := hl.xmin + float64(i)*w
				rect(c, p, x0, x0+w, y0, y1, hl.shade(n), nil)
			}
		}
	}
}

// heatThumb is a density layer's legend thumbnail: its colour from light
// to opaque, left to right.
type heatThumb struct{ col color.NRGBA }

// Thumbnail draws four boxes of growing opacity.
func (h heatThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	w := (r.Max.X - r.Min.X) / 4
	for i := range 4 {
		x := r.Min.X + vg.Length(i)*w
		c.FillPolygon(alpha(h.col, uint8(0x60+i*0x33)), []vg.Point{{X: x, Y: r.Min.Y}, {X: x + w, Y: r.Min.Y}, {X: x + w, Y: r.Max.Y}, {X: x, Y: r.Max.Y}})
	}
}

// opaque is c without transparency (a glyph colour reused for a density
// layer, whose cells set their own opacity).
func opaque(c color.Color) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = 0xff
	return n
}
