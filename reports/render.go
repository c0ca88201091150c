package reports

import (
	"bytes"
	"cmp"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// Image geometry: every plot is figWidth x figHeight at figDPI, so the
// PNGs are 1152 x 432 px (holders.png grows with its rows).
const (
	figWidth  = 12 * vg.Inch
	figHeight = 4.5 * vg.Inch
	figDPI    = 96
)

// Outcome colours, shared by every plot and the HTML page.
var (
	colOK   = rgb(0x1f, 0x77, 0xb4) // blue
	colFail = rgb(0xd6, 0x27, 0x28) // red
	colInfo = rgb(0xff, 0x7f, 0x0e) // orange
	colGrey = rgb(0x66, 0x66, 0x66)
)

func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{R: r, G: g, B: b, A: 0xff} }

// alpha returns c with opacity a (0-255).
func alpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

// legendItem is one entry of the legend strip under a plot.
type legendItem struct {
	Label string
	Thumb plot.Thumbnailer
}

// swatch is a legend thumbnail: a filled box, optionally outlined.
type swatch struct {
	Fill    color.Color
	Outline color.Color
}

// Thumbnail draws the box.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
	if s.Fill != nil {
		c.FillPolygon(s.Fill, pts)
	}
	if s.Outline != nil {
		c.StrokeLines(draw.LineStyle{Color: s.Outline, Width: vg.Points(1)}, append(pts, pts[0]))
	}
}

// sans is the report's typeface (Liberation Sans, embedded in gonum/plot);
// bold is its bold weight, for titles.
var (
	sans = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// newPlot returns a plot with the report's fonts; the x axis is time in
// seconds with round ticks.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(bold, 14)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	p.X.Tick.Marker = timeTicks{}
	return p
}

// timeTicks labels a seconds axis every 1, 2 or 5 x 10^k seconds (about
// ten labels), with unlabelled minor ticks between.
type timeTicks struct{}

// Ticks returns the ticks for [lo, hi].
func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if span <= 0 {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	step := math.Pow10(int(math.Floor(math.Log10(span / 10))))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 12 {
			step *= m
			break
		}
	}
	minor := step / 5
	if s := step / math.Pow10(int(math.Floor(math.Log10(step)))); s == 2 {
		minor = step / 4
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	var ts []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi+minor/1e6; i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// Every time plot's data area is axisLeft and axisRight from the image's
// edges (points), so that the PNGs' time axes line up.
const (
	axisLeft  = vg.Length(96)
	axisRight = vg.Length(18)
)

// alignTimeAxis returns the part of c to draw p into so that its data
// area spans [imgMin+axisLeft, imgMax-axisRight], cutting y tick labels
// too wide for it (cutLabels).
func alignTimeAxis(p *plot.Plot, c draw.Canvas, imgMin, imgMax vg.Length) draw.Canvas {
	fit := func(c draw.Canvas) (draw.Canvas, bool) {
		// The data area moves with the canvas edges almost one for one
		// (glyph padding is the exception); two passes settle it.
		for range 2 {
			dc := p.DataCanvas(c)
			c.Min.X = max(imgMin, c.Min.X+imgMin+axisLeft-dc.Min.X)
			c.Max.X = min(imgMax, c.Max.X+imgMax-axisRight-dc.Max.X)
		}
		return c, p.DataCanvas(c).Min.X <= imgMin+axisLeft+vg.Points(0.5)
	}
	out, ok := fit(c)
	inner, longest := p.Y.Tick.Marker, 0
	for _, t := range inner.Ticks(p.Y.Min, p.Y.Max) {
		longest = max(longest, len([]rune(t.Label)))
	}
	for n := longest - 1; !ok && n >= 2; n-- {
		p.Y.Tick.Marker = cutLabels{Ticker: inner, n: n}
		out, ok = fit(c)
	}
	return out
}

// cutLabels is a ticker whose labels are cut to at most n runes, the
// last one "…".
type cutLabels struct {
	plot.Ticker
	n int
}

// Ticks returns the inner ticker's ticks with their labels cut.
func (t cutLabels) Ticks(lo, hi float64) []plot.Tick {
	ts := t.Ticker.Ticks(lo, hi)
	for i := range ts {
		if r := []rune(ts[i].Label); len(r) > t.n {
			ts[i].Label = string(r[:t.n-1]) + "…"
		}
	}
	return ts
}

// runAxis sets p's x axis to 0 s..xMax(end), again after the last Add
// (which widens it).
func runAxis(p *plot.Plot, end int64) *plot.Plot {
	p.X.Min, p.X.Max = 0, xMax(end)
	return p
}

// timePlot gives p the run's time axis, 0 s to xMax(end), with the fault
// windows ws shaded over a light grid.
func timePlot(p *plot.Plot, ws []checker.Window, end int64) *plot.Plot {
	runAxis(p, end).Add(rowFaultBands{Windows: ws}, lightGrid())
	return p
}

// renderPNG draws p over its legend strip (renderStack).
func renderPNG(p *plot.Plot, legend []legendItem, w, h vg.Length) ([]byte, error) {
	return renderStack("", []*plot.Plot{p}, nil, legend, w, h)
}

// renderStack draws ps one above the other under title, over the legend
// strip, each a share of the height by weight (nil: equal), as PNG.
func renderStack(title string, ps []*plot.Plot, weights []float64, legend []legendItem, w, h vg.Length) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	strip, drawLegend := layoutLegend(legend, w)
	top := dc.Max.Y
	if title != "" {
		sty := draw.TextStyle{Color: color.Black, Font: font.From(bold, 14), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
		dc.FillText(sty, vg.Point{X: w / 2, Y: top - 6}, title)
		top -= sty.Height(title) + 14
	}
	if weights == nil {
		weights = slices.Repeat([]float64{1}, len(ps))
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	y := top
	for i, p := range ps {
		ph := (top - strip) * vg.Length(weights[i]/total)
		pc := dc
		pc.Max.Y = y
		pc.Min.Y = y - ph
		y -= ph
		p.Draw(alignTimeAxis(p, pc, dc.Min.X, dc.Max.X))
	}
	drawLegend(dc)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// layoutLegend lays the legend out in lines across w: the strip's height
// and a function drawing it at a canvas's bottom.
func layoutLegend(legend []legendItem, w vg.Length) (vg.Length, func(dc draw.Canvas)) {
	const (
		pad     = vg.Length(8)
		thumbW  = vg.Length(18)
		thumbH  = vg.Length(9)
		lineH   = vg.Length(15)
		itemGap = vg.Length(16)
	)
	sty := draw.TextStyle{Color: color.Black, Font: font.From(sans, 10.5), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	type placed struct {
		it   legendItem
		x    vg.Length
		line int
	}
	var items []placed
	x, line := pad, 0
	for _, it := range legend {
		wd := thumbW + 4 + sty.Width(it.Label)
		if x+wd > w-pad && x > pad {
			x, line = pad, line+1
		}
		items = append(items, placed{it, x, line})
		x += wd + itemGap
	}
	strip := vg.Length(0)
	if len(items) > 0 {
		strip = vg.Length(line+1)*lineH + pad
	}
	return strip, func(dc draw.Canvas) {
		for _, it := range items {
			y := strip - pad/2 - vg.Length(it.line)*lineH - lineH/2
			tc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: it.x, Y: y - thumbH/2}, Max: vg.Point{X: it.x + thumbW, Y: y + thumbH/2}}}
			it.it.Thumb.Thumbnail(&tc)
			dc.FillText(sty, vg.Point{X: it.x + thumbW + 4, Y: y}, it.it.Label)
		}
	}
}

// emptyNote makes p show msg in the middle of an empty data area, for runs
// with nothing to plot.
type emptyNote struct{ msg string }

// Plot draws the note.
func (e emptyNote) Plot(c draw.Canvas, p *plot.Plot) {
	sty := draw.TextStyle{Color: colGrey, Font: font.From(sans, 14), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
	c.FillText(sty, c.Center(), e.msg)
}

// lightGrid is a pale grid, drawn under the data.
func lightGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xe4}
	g.Horizontal.Color = color.Gray{Y: 0xe4}
	return g
}

// xMax is the right end of a time axis for a run ending at end (ns): a
// little past the end, so the last bars and points are not cut off.
func xMax(end int64) float64 {
	if end <= 0 {
		return 1
	}
	return seconds(end) * 1.02
}

// opOrder is the order of the per-operation panels (orderTypes).
var opOrder = []string{history.FAcquire, history.FRelease, history.FExtend, history.FRead, history.FWrite,
	history.FEnter, history.FLeave, history.FRun, history.FLead}

// orderTypes sorts operation types in opOrder, the others after it
// alphabetically.
func orderTypes(out []string) []string {
	rank := func(f string) int {
		if i := slices.Index(opOrder, f); i >= 0 {
			return i
		}
		return len(opOrder)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
	return out
}

// Per-operation figures: one panel of panelHeight per type, under a
// title, over a legend strip.
const (
	panelHeight = 2.1 * vg.Inch
	panelChrome = 0.9 * vg.Inch // figure title and legend strip
)

// panelsHeight is the height of a figure of n panels.
func panelsHeight(n int) vg.Length {
	return panelChrome + vg.Length(max(n, 1))*panelHeight
}

// newPanel returns a panel of a per-operation figure, the x axis
// labelled only on the bottom panel (last).
func newPanel(last bool) *plot.Plot {
	xl := ""
	if last {
		xl = "time since start (s)"
	}
	return smallTitle(newPlot("", xl, ""))
}

// smallTitle gives a plot of a stacked figure its smaller title.
func smallTitle(p *plot.Plot) *plot.Plot {
	p.Title.TextStyle.Font = font.From(bold, 11.5)
	p.Title.Padding = vg.Points(3)
	return p
}

// msLogAxis makes p's y axis a log axis of milliseconds (msLogTicks).
func msLogAxis(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = msLogTicks{}
}

// msLogTicks labels a log axis of ms ("0.1 ms") at the powers of ten, or
// 2 and 5 times them, or every multiple, when too few fall in range.
type msLogTicks struct{}

// Ticks returns 1..9 times each power of ten around [lo, hi].
func (msLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	// Label the powers of ten; if fewer than three fall in range, also 2
	// and 5 times them; if fewer than two labels then, every multiple.
	levels := [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	labelled := levels[0]
	for i, ms := range levels {
		labelled = ms
		n := 0
		for e := e0; e <= e1; e++ {
			for _, m := range ms {
				if in(mulPow10(m, e)) {
					n++
				}
			}
		}
		if n >= 3-min(i, 1) {
			break
		}
	}
	var ts []plot.Tick
	for e := e0; e <= e1; e++ {
		for m := 1; m <= 9; m++ {
			v := mulPow10(m, e)
			t := plot.Tick{Value: v}
			if m == 1 || in(v) && slices.Contains(labelled, m) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64) + " ms"
			}
			ts = append(ts, t)
			if e == e1 {
				break
			}
		}
	}
	return ts
}

// mulPow10 is m × 10^e, computed so that it prints short (3/10 is 0.3,
// 3 × 0.1 is not).
func mulPow10(m, e int) float64 {
	if e < 0 {
		return float64(m) / math.Pow10(-e)
	}
	return float64(m) * math.Pow10(e)
}
