package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/history"
)

// Long runs' holders.png: an overview of the whole run (occupancy) above
// a detailed chart of each of at most maxHolderSpans anomaly spans.
const (
	maxDetailLeases = 2000
	maxHolderSpans  = 4
	// overviewCols is the overview's time columns.
	overviewCols = 400
	// maxAnomalyTicks bounds the anomaly marks along the overview's top.
	maxAnomalyTicks = 500
)

// Colours of the overview's anomaly spans and anomaly marks.
var (
	colSpan  = rgb(0xff, 0xd7, 0x00)
	spanFont = font.From(bold, 11)
)

// occupancy is the overview's data: per row and time column, the share
// of the column held within validity (held) and past it (late), and
// whether two holders overlapped there (clash).
type occupancy struct {
	cols       int
	width      float64 // column width, s
	held, late [][]float64
	clash      [][]bool
	anyClash   []bool // per column: an overlap on some row
	spans      []anomalySpan
	anomalyAt  []float64 // s, anomaly marks
	rows       int
}

// emptyOccupancy is an overview of rows rows over [0, xmax] s without
// any lease yet.
func emptyOccupancy(rows int, xmax float64) *occupancy {
	o := &occupancy{cols: overviewCols, width: xmax / overviewCols, rows: rows}
	o.held, o.late, o.clash = make([][]float64, o.rows), make([][]float64, o.rows), make([][]bool, o.rows)
	for r := range o.rows {
		o.held[r], o.late[r], o.clash[r] = make([]float64, o.cols), make([]float64, o.cols), make([]bool, o.cols)
	}
	o.anyClash = make([]bool, o.cols)
	return o
}

// addHold adds a lease of row r believed held from start to end (ns),
// past its validity (ns; 0: none) after it.
func (o *occupancy) addHold(r int, start, end, validity int64) {
	add := func(dst []float64, a, b float64) {
		for c := max(int(a/o.width), 0); c < o.cols && float64(c)*o.width < b; c++ {
			lo, hi := math.Max(a, float64(c)*o.width), math.Min(b, float64(c+1)*o.width)
			if hi > lo {
				dst[c] += (hi - lo) / o.width
			}
		}
	}
	if validity > 0 && validity < end {
		e := max(validity, start)
		add(o.late[r], seconds(e), seconds(end))
		end = e
	}
	add(o.held[r], seconds(start), seconds(end))
}

// addClash marks two holders at once on rows from start to end (ns).
func (o *occupancy) addClash(rows []int, start, end int64) {
	c0, c1 := int(seconds(start)/o.width), int(seconds(end)/o.width)
	for c := max(c0, 0); c <= min(c1, o.cols-1); c++ {
		o.anyClash[c] = true
		for _, r := range rows {
			o.clash[r][c] = true
		}
	}
}

// Plot draws the anomaly spans (numbered yellow columns), the occupancy strips
// (the opacity of a cell is its held share relative to the fullest
// cell's), the overlaps and the anomaly marks.
func (o *occupancy) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, w := range o.spans {
		rect(c, p, seconds(w.From), seconds(w.To), p.Y.Min, p.Y.Max, alpha(colSpan, 0x60), colSpan)
		sty := draw.TextStyle{Color: color.Black, Font: spanFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
		pt := vg.Point{X: trX(seconds(w.From+w.To) / 2), Y: c.Max.Y - vg.Points(1)}
		c.FillText(sty, pt, fmt.Sprint(i+1))
	}
	for col, any := range o.anyClash {
		if any {
			x := float64(col) * o.width
			rect(c, p, x, x+o.width, p.Y.Min, p.Y.Max, alpha(colOverlap, 0x28), nil)
		}
	}
	top := 0.0 // the fullest cell: darkest
	for r := range o.rows {
		for _, f := range o.held[r] {
			top = math.Max(top, math.Min(f, 1))
		}
	}
	for r := range o.rows {
		y := float64(r)
		for col := range o.cols {
			x := float64(col) * o.width
			if f := math.Min(o.held[r][col], 1); f > 0 {
				rect(c, p, x, x+o.width, y-rowBar*1.4, y+rowBar*1.4, alpha(colHeld, uint8(0x30+f/top*0xcf)), nil)
			}
			if f := math.Min(o.late[r][col], 1); f > 0 {
				rect(c, p, x, x+o.width, y+rowBar*0.3, y+rowBar*1.4, alpha(colExpired, uint8(0x90+f*0x6f)), nil)
			}
			if o.clash[r][col] {
				rect(c, p, x, x+o.width, y+rowOverlapA, y+rowOverlapB, colOverlap, nil)
			}
		}
	}
	mark := draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(3), Shape: downTriangle{}}
	for _, t := range o.anomalyAt {
		pt := vg.Point{X: trX(t), Y: trY(p.Y.Max) - vg.Points(4)}
		if c.Contains(pt) {
			c.DrawGlyph(mark, pt)
		}
	}
}

// downTriangle is a ▼ glyph, the overview's anomaly mark.
type downTriangle struct{}

// DrawGlyph draws the triangle centred on pt.
func (downTriangle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	c.FillPolygon(sty.Color, []vg.Point{{X: pt.X - r, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y + r}, {X: pt.X, Y: pt.Y - r}})
}

// between is the part of hc to draw within [from, to] ns.
func (hc *detail) between(from, to int64) *detail {
	out := &detail{sm: hc.sm, lost: hc.lost}
	idx := map[int]int{}
	for i, ho := range hc.hs {
		if ho.Start <= to && max(ho.End, ho.Validity) >= from {
			idx[i] = len(out.hs)
			out.hs = append(out.hs, ho)
		}
	}
	for _, ov := range hc.ovs {
		a, okA := idx[ov.A]
		b, okB := idx[ov.B]
		if okA && okB && ov.Start <= to && ov.End >= from {
			out.ovs = append(out.ovs, overlap{Start: ov.Start, End: ov.End, A: a, B: b})
		}
	}
	for _, m := range hc.marks {
		if min(m.Call, m.At()) <= to && max(m.Call, m.At()) >= from {
			out.marks = append(out.marks, m)
		}
	}
	for i := range hc.h {
		if r := &hc.h[i]; r.F == history.FLost && r.Time >= from && r.Time <= to {
			out.h = append(out.h, *r)
		}
	}
	return out
}

// rowsPlot is a holders plot over [x0, x1] s with one labelled row per
// slot and the fault windows shaded.
func rowsPlot(a holdersArgs, title, xlabel string, x0, x1 float64) *plot.Plot {
	sm := a.d.sm
	p := newPlot(title, xlabel, "")
	p.X.Min, p.X.Max = x0, x1
	p.Add(rowFaultBands{Windows: a.d.ws, Rows: clientRows(a.d.h, a.d.ws, sm)}, lightGrid())
	rows := len(sm.Rows)
	p.Y.Min, p.Y.Max = -0.6, math.Max(float64(rows)-0.4, 0.4)
	var ticks []plot.Tick
	for i, l := range sm.Rows {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return p
}

// smallTitle gives a plot of a stacked figure its smaller title.
func smallTitle(p *plot.Plot) *plot.Plot {
	p.Title.TextStyle.Font = font.From(bold, 11.5)
	p.Title.Padding = vg.Points(3)
	return p
}

// holdersWithSpans draws holders.png as the overview of the run's leases
// above one detailed chart per anomaly span. end is the run's end, ns.
func holdersWithSpans(a holdersArgs, title string, end int64) ([]byte, error) {
	hc := a.d
	timeOf, spans, left := a.timeOf, a.spans, a.spansLeft
	if timeOf == nil {
		timeOf = timeIn(a.d.h)
		spans, left = anomalySpans(timeOf, a.anomalies, a.pad, end, maxHolderSpans)
	}
	switch {
	case len(spans) == 0:
		title += "; overview, no anomaly to draw a span around"
	case left > 0:
		title += fmt.Sprintf("; %d anomaly spans (%d more not drawn)", len(spans), left)
	default:
		title += fmt.Sprintf("; %d anomaly span(s)", len(spans))
	}
	o := a.overview(end)
	o.spans = spans
	o.anomalyAt = nil
	for _, an := range a.anomalies {
		if len(o.anomalyAt) == maxAnomalyTicks {
			break
		}
		if n := len(an.Ops); n > 0 {
			if t, ok := timeOf(an.Ops[n-1]); ok {
				o.anomalyAt = append(o.anomalyAt, seconds(t))
			}
		}
	}
	xl := "time since start (s)"
	ov := smallTitle(rowsPlot(a, fmt.Sprintf("Whole run: share of each of %d columns (%.3g s) each client held the lock", overviewCols, o.width)+a.overviewNote, xl, 0, xMax(end)))
	ov.Add(o)
	ps := []*plot.Plot{runAxis(ov, end)}
	rows := float64(len(hc.sm.Rows))
	rowH := math.Max(0.12, math.Min(0.38, 6/math.Max(rows, 1))) // inches per row in a span's chart
	ovH := 1.0 + rows*math.Min(0.22, 3/math.Max(rows, 1))
	weights := []float64{ovH}
	height := vg.Length(ovH) * vg.Inch
	for i, w := range spans {
		p := smallTitle(rowsPlot(a, fmt.Sprintf("Span %d of %d — %s", i+1, len(spans), w.Label())+a.spanNote, xl, seconds(w.From), seconds(w.To)))
		p.Add(hc.between(w.From, w.To), anomalyLines{timeOf, w.Ops})
		ps = append(ps, p)
		spanH := 1.2 + rows*rowH
		weights = append(weights, spanH)
		height += vg.Length(spanH) * vg.Inch
	}
	legend := []legendItem{
		{"overview: share of the column held (darker = longer)", heatThumb{colHeld}},
		{"overview: held past validity", swatch{Fill: colExpired}},
		{"anomaly (its last op)", glyphThumb(draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(3), Shape: downTriangle{}})},
		{"span drawn in detail below", swatch{Fill: alpha(colSpan, 0x60), Outline: colSpan}},
		{"a span's anomaly records", lineThumb(anomalyLineStyle)},
	}
	legend = append(append(legend, holdersLegend(len(a.d.lost) > 0)...), faultLegend(a.d.ws)...)
	return renderStack(title, ps, weights, legend, figWidth, height+1.2*vg.Inch)
}

// anomalyLines marks, in a span's chart, the times of its anomalies'
// records (at most maxAnomalyLines) with dashed red lines.
type anomalyLines struct {
	timeOf func(i int64) (int64, bool)
	ops    []int64
}

// maxAnomalyLines bounds the lines of one span's chart.
const maxAnomalyLines = 40

// anomalyLineStyle is the dashed line at an anomaly's record.
var anomalyLineStyle = draw.LineStyle{Color: alpha(colOverlap, 0xd0), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}

// Plot draws the lines.
func (l anomalyLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, o := range l.ops {
		if i == maxAnomalyLines {
			break
		}
		if t, ok := l.timeOf(o); ok {
			x := trX(seconds(t))
			c.StrokeLines(anomalyLineStyle, c.ClipLinesXY([]vg.Point{{X: x, Y: c.Min.Y}, {X: x, Y: c.Max.Y}})...)
		}
	}
}
