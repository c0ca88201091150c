package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
)

// Colours of holders.png.
var (
	colHeld    = rgb(0x1f, 0x77, 0xb4) // held, within validity
	colExpired = rgb(0xff, 0x9f, 0x1c) // held after validity ended
	colValEdge = rgb(0x6b, 0x9b, 0xc8) // validity line and its deadline tick
	colOverlap = rgb(0xe0, 0x00, 0x00)
)

// resourceOps are the operations that touch the protected resource; they
// are marked on the holder rows.
var resourceOps = map[string]bool{history.FWrite: true, history.FEnter: true, history.FLead: true, history.FRun: true}

// rect fills the data rectangle [x0,x1] x [y0,y1] (x in s, y in rows),
// at least one point wide.
func rect(c draw.Canvas, p *plot.Plot, x0, x1, y0, y1 float64, fill, edge color.Color) {
	trX, trY := p.Transforms(&c)
	a, b := trX(x0), trX(x1)
	if b-a < vg.Points(1) {
		b = a + vg.Points(1)
	}
	pts := []vg.Point{{X: a, Y: trY(y0)}, {X: b, Y: trY(y0)}, {X: b, Y: trY(y1)}, {X: a, Y: trY(y1)}}
	if fill != nil {
		if cl := c.ClipPolygonXY(pts); len(cl) > 0 {
			c.FillPolygon(fill, cl)
		}
	}
	if edge != nil {
		c.StrokeLines(draw.LineStyle{Color: edge, Width: vg.Points(0.8)}, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// Row layout in row units around its centre: validity line, held bar,
// overlap strip below, resource marks on top.
const (
	rowValidity = 0.27
	rowBar      = 0.15
	rowOverlapA = -0.30
	rowOverlapB = -0.19
	rowMarks    = 0.40
)

// Plot draws holders.png's rows: validity lines, held bars, overlap
// strips and columns, resource marks, lost increments and notices.
func (hc *detail) Plot(c draw.Canvas, p *plot.Plot) {
	row := func(proc int) float64 { return float64(hc.sm.Row[proc]) }
	trX, trY := p.Transforms(&c)
	for _, o := range hc.ovs {
		rect(c, p, seconds(o.Start), seconds(o.End), p.Y.Min, p.Y.Max, alpha(colOverlap, 0x20), nil)
	}
	for _, ho := range hc.hs {
		if ho.Validity <= 0 {
			continue
		}
		y := row(ho.Process) + rowValidity
		x0, x1 := trX(seconds(ho.Start)), trX(seconds(ho.Validity))
		c.StrokeLines(validityStyle, c.ClipLinesXY([]vg.Point{{X: x0, Y: trY(y)}, {X: x1, Y: trY(y)}})...)
		c.StrokeLines(validityStyle, c.ClipLinesXY([]vg.Point{{X: x1, Y: trY(y - 0.06)}, {X: x1, Y: trY(y + 0.06)}})...)
	}
	for _, ho := range hc.hs {
		y := row(ho.Process)
		end := ho.End
		if ho.Validity > 0 && ho.Validity < end {
			end = max(ho.Validity, ho.Start)
			rect(c, p, seconds(end), seconds(ho.End), y-rowBar, y+rowBar, colExpired, nil)
		}
		rect(c, p, seconds(ho.Start), seconds(end), y-rowBar, y+rowBar, colHeld, nil)
	}
	for _, o := range hc.ovs {
		for _, i := range []int{o.A, o.B} {
			y := row(hc.hs[i].Process)
			rect(c, p, seconds(o.Start), seconds(o.End), y+rowOverlapA, y+rowOverlapB, colOverlap, nil)
		}
	}
	at := map[int64]vg.Point{} // write invoke index -> where its mark is
	for _, m := range hc.marks {
		y := trY(row(m.Proc) + rowMarks)
		pt := vg.Point{X: trX(seconds(m.At())), Y: y}
		at[m.Inv] = pt
		if m.Known {
			// the flight: a thin line from the send (a short tick) to the arrival
			x0 := trX(seconds(m.Call))
			c.StrokeLines(flightStyle, c.ClipLinesXY([]vg.Point{{X: x0, Y: y}, pt})...)
			c.StrokeLines(flightStyle, c.ClipLinesXY([]vg.Point{{X: x0, Y: y - vg.Points(3)}, {X: x0, Y: y + vg.Points(3)}})...)
		}
	}
	for _, m := range hc.marks {
		if pt := at[m.Inv]; c.Contains(pt) {
			c.DrawGlyph(markGlyph(m), pt)
		}
	}
	for _, l := range hc.lost {
		a, okA := at[l.A]
		b, okB := at[l.B]
		if !okA || !okB {
			continue
		}
		if b.X < a.X {
			a, b = b, a // ring the later arrival: when it wrote a value already written, an increment was lost
		}
		c.StrokeLines(lostLinkStyle, c.ClipLinesXY([]vg.Point{a, b})...)
		if c.Contains(b) {
			c.DrawGlyph(lostIncGlyph, b)
		}
	}
	for i := range hc.h {
		r := &hc.h[i]
		if r.F == history.FLost && r.Type == history.Invoke {
			pt := vg.Point{X: trX(seconds(r.Time)), Y: trY(row(r.Process))}
			if c.Contains(pt) {
				c.DrawGlyph(lostGlyph, pt)
			}
		}
	}
}

// Glyphs and lines of resource operations, lost increments and lost
// notices on holders.png.
var (
	glyphWriteOK    = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.2), Shape: draw.PyramidGlyph{}}
	glyphWriteStale = draw.GlyphStyle{Color: colFail, Radius: vg.Points(4.5), Shape: boldCross{}}
	glyphWriteInfo  = draw.GlyphStyle{Color: colInfo, Radius: vg.Points(3), Shape: draw.BoxGlyph{}}
	lostGlyph       = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
	lostIncGlyph    = draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(6.5), Shape: draw.RingGlyph{}}
	validityStyle   = draw.LineStyle{Color: colValEdge, Width: vg.Points(1.6)}
	flightStyle     = draw.LineStyle{Color: alpha(colGrey, 0xb0), Width: vg.Points(0.7)}
	lostLinkStyle   = draw.LineStyle{Color: alpha(colOverlap, 0xc0), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
)

// markGlyph is a resource operation's mark by the resource's answer when
// Known, else the history's (fail = rejected, info = unknown).
func markGlyph(a arrival) draw.GlyphStyle {
	switch {
	case a.Known && a.Accepted, !a.Known && a.Completed && a.Type == history.OK:
		return glyphWriteOK
	case a.Known, a.Completed && a.Type == history.Fail:
		return glyphWriteStale
	}
	return glyphWriteInfo
}

// holdersArgs is what holders.png is drawn from; times in ns.
type holdersArgs struct {
	d         *detail
	end       int64
	anomalies []checker.Anomaly
	pad       int64
	overview  func(end int64) *occupancy

	// For a history not kept whole (timeOf nil: spans are picked from
	// the detail's history).
	spans                  []anomalySpan
	spansLeft              int
	timeOf                 func(i int64) (int64, bool)
	title                  string
	overviewNote, spanNote string
}

// holdersPNG draws holders.png of the run from the pass (drawHolders).
func (s *runScan) holdersPNG(res *analysis.Result, end int64) ([]byte, error) {
	a := holdersArgs{d: s.d, end: end, anomalies: allAnomalies(res.Verdict), pad: spanPad(res.Config.TTL), overview: s.overview}
	if !s.whole {
		a.spans, a.spansLeft, a.timeOf = s.spans, s.spansLeft, s.timeOf
		a.title = holdersTitle(s.leases.log.start.len(), s.leases.within, len(s.leases.log.clashes), 0)
		a.overviewNote = fmt.Sprintf(", streamed over all %d records", s.records)
		a.spanNote = " (only the records read around it)"
	}
	return drawHolders(a)
}

// holdersTitle is holders.png's title: leases, overlaps within validity,
// pairs held at once, lost increments.
func holdersTitle(leases, within, pairs, lost int) string {
	title := fmt.Sprintf("Lock holders: %d leases, %s within validity", leases, page.Count(within, "overlap", "overlaps"))
	switch {
	case leases == 0:
		title = "Lock holders: nobody held the lock"
	case pairs > 0:
		title += fmt.Sprintf(" (red: %s held at once)", page.Count(pairs, "pair", "pairs"))
	}
	if lost > 0 {
		title += ", " + page.Count(lost, "lost increment", "lost increments")
	}
	return title
}

// drawHolders draws holders.png: a history kept whole of at most
// maxDetailLeases leases in one chart, any other as holdersWithSpans.
func drawHolders(a holdersArgs) ([]byte, error) {
	d := a.d
	if a.title == "" {
		a.title = holdersTitle(len(d.hs), d.within, len(d.ovs), len(d.lost))
	}
	legend := append(holdersLegend(len(d.lost) > 0), faultLegend(d.ws)...)
	if a.timeOf != nil || len(d.hs) > maxDetailLeases {
		return holdersWithSpans(a, legend)
	}
	p := d.rowsPlot(a.title, 0, xMax(a.end))
	rows := len(d.sm.Rows)
	height := figHeight
	if rows > 6 {
		height = 2.4*vg.Inch + vg.Length(rows)*0.38*vg.Inch
	}
	switch {
	case rows == 0:
		p.Add(emptyNote{"no client operations in this history"})
	case len(d.hs) == 0:
		p.Add(emptyNote{"no acquire succeeded: nobody ever held the lock"}, d)
	default:
		p.Add(d)
	}
	return renderPNG(runAxis(p, a.end), legend, figWidth, height)
}

// holdersLegend is the legend of the detailed holders chart; lost adds
// the lost-increment ring.
func holdersLegend(lost bool) []legendItem {
	legend := []legendItem{
		{"held (acquire ok → release)", swatch{Fill: colHeld}},
		{"held after its validity ended", swatch{Fill: colExpired}},
		{"validity (acquire ok → the lease end the client computed)", tickThumb{line: validityStyle, atEnd: true}},
		{"two holders at once (both rows)", swatch{Fill: colOverlap}},
		{"write ok", glyphThumb(glyphWriteOK)},
		{"write rejected", glyphThumb(glyphWriteStale)},
		{"write unknown", glyphThumb(glyphWriteInfo)},
		{"sent → reached the resource", tickThumb{line: flightStyle, glyph: &glyphWriteOK}},
	}
	if lost {
		legend = append(legend, legendItem{"lost increment: a write of a value already written (dashed line to the first)", glyphThumb(lostIncGlyph)})
	}
	return append(legend, legendItem{"lease lost notice", glyphThumb(lostGlyph)})
}

// glyphThumb draws a glyph as a legend thumbnail.
type glyphThumb draw.GlyphStyle

// Thumbnail draws the glyph in the middle of c.
func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(draw.GlyphStyle(g), c.Center()) }

// tickThumb is a legend line with a tick across its start (across its
// end when atEnd) and, if set, a glyph at its end.
type tickThumb struct {
	line  draw.LineStyle
	atEnd bool
	glyph *draw.GlyphStyle
}

// Thumbnail draws the line, the tick and the glyph.
func (t tickThumb) Thumbnail(c *draw.Canvas) {
	y, x := c.Center().Y, c.Min.X
	if t.atEnd {
		x = c.Max.X
	}
	c.StrokeLine2(t.line, c.Min.X, y, c.Max.X, y)
	c.StrokeLine2(t.line, x, c.Min.Y, x, c.Max.Y)
	if t.glyph != nil {
		c.DrawGlyph(*t.glyph, vg.Point{X: c.Max.X, Y: y})
	}
}

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

// The overview's anomaly spans (colour, number font) and anomaly marks.
var (
	colSpan     = rgb(0xff, 0xd7, 0x00)
	spanFont    = font.From(bold, 11)
	anomalyMark = draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(3), Shape: downTriangle{}}
)

// Plot draws the overview: anomaly spans, held shares (opacity relative to
// the fullest cell's), overlaps and anomaly marks.
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
	for _, t := range o.anomalyAt {
		pt := vg.Point{X: trX(t), Y: trY(p.Y.Max) - vg.Points(4)}
		if c.Contains(pt) {
			c.DrawGlyph(anomalyMark, pt)
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

// rowsPlot is a holders plot of d over [x0, x1] s with one labelled row
// per slot and the fault windows shaded.
func (d *detail) rowsPlot(title string, x0, x1 float64) *plot.Plot {
	p := newPlot(title, "time since start (s)", "")
	p.X.Min, p.X.Max = x0, x1
	p.Add(rowFaultBands{Windows: d.ws, Rows: clientRows(d.h, d.ws, d.sm)}, lightGrid())
	p.Y.Min, p.Y.Max = -0.6, math.Max(float64(len(d.sm.Rows))-0.4, 0.4)
	var ticks []plot.Tick
	for i, l := range d.sm.Rows {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return p
}

// holdersWithSpans draws holders.png as the overview of the run's leases
// above a detailed chart per anomaly span.
func holdersWithSpans(a holdersArgs, legend []legendItem) ([]byte, error) {
	hc, title, end := a.d, a.title, a.end
	timeOf, spans, left := a.timeOf, a.spans, a.spansLeft
	if timeOf == nil {
		timeOf = timeIn(hc.h)
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
	ov := smallTitle(hc.rowsPlot(fmt.Sprintf("Whole run: share of each of %d columns (%.3g s) each client held the lock", overviewCols, o.width)+a.overviewNote, 0, xMax(end)))
	ov.Add(o)
	ps := []*plot.Plot{runAxis(ov, end)}
	rows := float64(len(hc.sm.Rows))
	rowH := math.Max(0.12, math.Min(0.38, 6/math.Max(rows, 1))) // inches per row in a span's chart
	weights := []float64{1.0 + rows*math.Min(0.22, 3/math.Max(rows, 1))}
	height := vg.Length(weights[0]) * vg.Inch
	for i, w := range spans {
		p := smallTitle(hc.rowsPlot(fmt.Sprintf("Span %d of %d — %s", i+1, len(spans), w.Label())+a.spanNote, seconds(w.From), seconds(w.To)))
		p.Add(hc.between(w.From, w.To), anomalyLines{timeOf, w.Ops})
		ps, weights = append(ps, p), append(weights, 1.2+rows*rowH)
		height += vg.Length(1.2+rows*rowH) * vg.Inch
	}
	legend = append([]legendItem{
		{"overview: share of the column held (darker = longer)", heatThumb{colHeld}},
		{"overview: held past validity", swatch{Fill: colExpired}},
		{"anomaly (its last op)", glyphThumb(anomalyMark)},
		{"span drawn in detail below", swatch{Fill: alpha(colSpan, 0x60), Outline: colSpan}},
		{"a span's anomaly records", lineThumb(anomalyLineStyle)},
	}, legend...)
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
