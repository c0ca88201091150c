package sweep

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"github.com/lockstorm/lockstorm/internal/page"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// MapKind selects what a heat map shows.
type MapKind int

const (
	// ViolationsMap colours each cell by its violations (lost updates +
	// overlaps + stale writes accepted, mean per run), white for none.
	ViolationsMap MapKind = iota
	// AvailabilityMap colours each cell by its acquire success rate, red
	// (0%) to green (100%).
	AvailabilityMap
)

var (
	sans = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// Figure geometry: one panel per renewal value.
const (
	panelWidth  = 4.6 * vg.Inch
	panelHeight = 4 * vg.Inch
	headerH     = 0.45 * vg.Inch
	figDPI      = 96
)

// HeatMap draws one panel per renewal value of g, TTL on x and pause
// length on y, each cell coloured by kind and labelled with its value.
// Grid points without a finished run are grey and marked "not run".
func HeatMap(agg map[Point]Agg, g Grid, kind MapKind) ([]byte, error) {
	n := max(len(g.Renews), 1)
	w, h := panelWidth*vg.Length(n), panelHeight+headerH
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)

	title := "Violations per run: lost updates + overlaps + stale writes accepted"
	if kind == AvailabilityMap {
		title = "Availability: acquire success rate"
	}
	hs := draw.TextStyle{Color: color.Black, Font: font.From(bold, 15), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
	dc.FillText(hs, vg.Point{X: w / 2, Y: h - headerH/2}, title)

	maxV := 0.0
	for _, a := range agg {
		maxV = max(maxV, a.Violations)
	}
	plots := make([][]*plot.Plot, 1)
	for _, r := range g.Renews {
		plots[0] = append(plots[0], panel(agg, g, r, kind, maxV))
	}
	body := dc
	body.Max.Y -= headerH
	tiles := draw.Tiles{Rows: 1, Cols: n, PadX: vg.Points(10), PadLeft: vg.Points(6), PadRight: vg.Points(6), PadBottom: vg.Points(6)}
	cs := plot.Align(plots, tiles, body)
	for j := range plots[0] {
		plots[0][j].Draw(cs[0][j])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// panel is the heat map of one renewal value.
func panel(agg map[Point]Agg, g Grid, r Renew, kind MapKind, maxV float64) *plot.Plot {
	p := plot.New()
	lock := "single lock, no renewal"
	if !r.None() {
		lock = "renewable lock, watchdog every " + r.Spec
	}
	p.Title.Text = "renew " + r.Spec + " (" + lock + ")"
	p.Title.TextStyle.Font = font.From(bold, 12)
	p.X.Label.Text = "TTL"
	p.Y.Label.Text = "client pause of the holder"
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 11)
		a.Tick.Length = 0
		a.LineStyle.Width = 0
	}
	var xt, yt []plot.Tick
	for i, ttl := range g.TTLs {
		xt = append(xt, plot.Tick{Value: float64(i), Label: page.Dur(ttl)})
	}
	for j, d := range g.Pauses {
		label := page.Dur(d)
		if d == 0 {
			label = "none"
		}
		yt = append(yt, plot.Tick{Value: float64(j), Label: label})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Min, p.X.Max = -0.5, float64(len(g.TTLs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(g.Pauses))-0.5
	p.Add(cellsPlotter{agg: agg, g: g, renew: r.Spec, kind: kind, maxV: maxV})
	return p
}

// cellsPlotter draws the coloured, labelled cells of one panel.
type cellsPlotter struct {
	agg   map[Point]Agg
	g     Grid
	renew string
	kind  MapKind
	maxV  float64
}

// Plot draws the cells.
func (cp cellsPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	big := draw.TextStyle{Color: color.Black, Font: font.From(bold, 16), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
	small := big
	small.Font = font.From(sans, 10)
	for i, ttl := range cp.g.TTLs {
		for j, pause := range cp.g.Pauses {
			x0, x1 := trX(float64(i)-0.5), trX(float64(i)+0.5)
			y0, y1 := trY(float64(j)-0.5), trY(float64(j)+0.5)
			pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			a, ok := cp.agg[Point{ttl, cp.renew, pause}]
			fill, lines := cp.look(a, ok)
			c.FillPolygon(fill, pts)
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(3)}, append(pts, pts[0]))
			ink := color.Color(color.Black)
			if luminance(fill) < 0.45 {
				ink = color.White
			}
			big.Color, small.Color = ink, ink
			cx, cy := (x0+x1)/2, (y0+y1)/2
			step := vg.Points(15)
			top := cy + step*vg.Length(len(lines)-1)/2
			for k, l := range lines {
				st := small
				if k == 0 {
					st = big
				}
				c.FillText(st, vg.Point{X: cx, Y: top - step*vg.Length(k)}, l)
			}
		}
	}
}

// look is a cell's colour and text lines (the first drawn large).
func (cp cellsPlotter) look(a Agg, ok bool) (color.Color, []string) {
	if !ok {
		return color.Gray{Y: 0xd8}, []string{"–", "not run"}
	}
	verdict := verdictText(a)
	switch cp.kind {
	case AvailabilityMap:
		return availColour(a.SuccessRate), []string{fmt.Sprintf("%.0f%%", 100*a.SuccessRate), "of acquires ok", verdict}
	}
	num := fmt.Sprintf("%.0f", a.Violations)
	if a.Runs > 1 {
		num = fmt.Sprintf("%.1f", a.Violations)
	}
	writes := fmt.Sprintf("%.0f late of %.0f writes", a.LateWrites, a.Writes)
	return violationColour(a.Violations, cp.maxV), []string{num, writes, verdict}
}

func verdictText(a Agg) string {
	switch {
	case a.Runs == 1 && a.Invalid == 1:
		return "INVALID"
	case a.Runs == 1 && a.Unknown == 1:
		return "unknown"
	case a.Runs == 1:
		return "valid"
	}
	s := fmt.Sprintf("%d/%d invalid", a.Invalid, a.Runs)
	if a.Unknown > 0 {
		s += fmt.Sprintf(", %d unknown", a.Unknown)
	}
	return s
}

// violationColour runs from white (none) through pale red to dark red (the
// grid's worst), on a log scale so a single violation already shows.
func violationColour(v, maxV float64) color.Color {
	if v <= 0 {
		return color.NRGBA{R: 0xf4, G: 0xfa, B: 0xf4, A: 0xff}
	}
	t := 0.25 + 0.75*math.Log1p(v)/math.Log1p(max(maxV, 1))
	return lerp(color.NRGBA{R: 0xfc, G: 0xd5, B: 0xc5, A: 0xff}, color.NRGBA{R: 0x9e, G: 0x10, B: 0x10, A: 0xff}, min(t, 1))
}

// availColour runs from red (0%) through yellow (50%) to green (100%).
func availColour(rate float64) color.Color {
	red := color.NRGBA{R: 0xd7, G: 0x30, B: 0x27, A: 0xff}
	yellow := color.NRGBA{R: 0xfe, G: 0xe0, B: 0x8b, A: 0xff}
	green := color.NRGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}
	rate = min(max(rate, 0), 1)
	if rate < 0.5 {
		return lerp(red, yellow, rate*2)
	}
	return lerp(yellow, green, (rate-0.5)*2)
}

func lerp(a, b color.NRGBA, t float64) color.NRGBA {
	f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.NRGBA{R: f(a.R, b.R), G: f(a.G, b.G), B: f(a.B, b.B), A: 0xff}
}

// luminance is the relative brightness of c, 0 (black) to 1 (white).
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
