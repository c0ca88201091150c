package reports

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
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

// Row layout, in row units around the row's centre y: the validity line
// above the bar, the held bar, the overlap strip below it, resource marks
// at the top.
const (
	rowValidity = 0.27
	rowBar      = 0.15
	rowOverlapA = -0.30
	rowOverlapB = -0.19
	rowMarks    = 0.40
)

// Plot draws the rows of holders.png from hc, per row: validity lines, held bars (blue, orange past the
// validity), red overlap strips, resource marks and lost notices; and a
// translucent red band over the whole height for each overlap.
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

// markGlyph is a resource operation's mark by outcome: the resource's own
// answer when its log placed the operation (accepted or rejected), else
// the history's (ok, fail = rejected, info = unknown).
func markGlyph(a arrival) draw.GlyphStyle {
	switch {
	case a.Known && a.Accepted, !a.Known && a.Completed && a.Type == history.OK:
		return glyphWriteOK
	case a.Known, a.Completed && a.Type == history.Fail:
		return glyphWriteStale
	}
	return glyphWriteInfo
}

// holdersArgs is what holders.png is drawn from: the kept history's
// detail, the run's end, the anomalies, the spans' pad and the overview
// of the run's leases to an end (runScan.overview); times in ns.
type holdersArgs struct {
	d         *detail
	end       int64
	anomalies []checker.Anomaly
	pad       int64
	overview  func(end int64) *occupancy

	// For a history not kept whole: the spans read, how many were left
	// out, the anomaly records' times, the title, notes for the
	// overview's and each span's title. timeOf nil: spans are picked
	// from the detail's history.
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

// holdersTitle is holders.png's title: the leases, the pairs overlapping
// within validity (as the exclusion checker counts), the pairs held at
// once drawn in red, and the lost increments.
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

// drawHolders draws holders.png: one row per client slot, drawn by
// detail.Plot over the fault windows. A history kept whole with at most
// maxDetailLeases leases is drawn in one such chart; any other as its
// overview above one chart per anomaly span (holdersWithSpans).
func drawHolders(a holdersArgs) ([]byte, error) {
	d := a.d
	hs, title, end := d.hs, a.title, a.end
	if title == "" {
		title = holdersTitle(len(hs), d.within, len(d.ovs), len(d.lost))
	}
	if a.timeOf != nil || len(hs) > maxDetailLeases {
		return holdersWithSpans(a, title, end)
	}
	p := rowsPlot(a, title, "time since start (s)", 0, xMax(end))
	rows := len(d.sm.Rows)
	height := figHeight
	if rows > 6 {
		height = 2.4*vg.Inch + vg.Length(rows)*0.38*vg.Inch
	}
	if rows == 0 {
		p.Add(emptyNote{"no client operations in this history"})
	} else {
		if len(hs) == 0 {
			p.Add(emptyNote{"no acquire succeeded: nobody ever held the lock"})
		}
		p.Add(d)
	}
	return renderPNG(runAxis(p, end), append(holdersLegend(len(d.lost) > 0), faultLegend(d.ws)...), figWidth, height)
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
