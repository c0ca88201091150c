package sweep

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

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
	// ViolationsMap colours each cell by its share of invalid runs, pale
	// green when none of its runs was invalid, amber when some were
	// unknown and none invalid, pale to dark red as k of N runs were
	// invalid; its label reads "k/N invalid", then the mean violations
	// per run (lost updates + overlaps + stale writes accepted).
	ViolationsMap MapKind = iota
	// AvailabilityMap colours each cell by its acquire success rate, red
	// (0%) to green (100%).
	AvailabilityMap
)

var (
	sans = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// Figure geometry: one panel per lock setting (Grid.Settings).
const (
	panelWidth  = 4.6 * vg.Inch
	panelHeight = 4 * vg.Inch
	headerH     = 0.45 * vg.Inch
	figDPI      = 96
)

// HeatMap draws one panel per lock setting of g (Grid.Settings: each
// renewal value, then the fenced lock), TTL on x and pause length on y,
// each cell coloured by kind and labelled with its value. Grid points
// without a finished run are grey and marked "not run".
func HeatMap(agg map[Point]Agg, g Grid, kind MapKind) ([]byte, error) {
	settings := g.Settings()
	n := max(len(settings), 1)
	w, h := panelWidth*vg.Length(n), panelHeight+headerH
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)

	title := "Invalid runs per cell (k of N runs invalid)"
	if kind == AvailabilityMap {
		title = "Availability: acquire success rate"
	}
	hs := draw.TextStyle{Color: color.Black, Font: font.From(bold, 15), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
	if g.Lock.Label != "" {
		title = g.Lock.Label + ": " + strings.ToLower(title[:1]) + title[1:]
	}
	dc.FillText(hs, vg.Point{X: w / 2, Y: h - headerH/2}, title)

	plots := make([][]*plot.Plot, 1)
	for _, st := range settings {
		plots[0] = append(plots[0], panel(agg, g, st, kind))
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

// panel is the heat map of one lock setting.
func panel(agg map[Point]Agg, g Grid, st Setting, kind MapKind) *plot.Plot {
	p := plot.New()
	p.Title.Text = g.Lock.Name(st)
	if d := g.Lock.describe(st); d != "" {
		p.Title.Text += " (" + d + ")"
	}
	p.Title.TextStyle.Font = font.From(bold, 12)
	p.X.Label.Text = g.Lock.ttlName()
	p.Y.Label.Text = "client pause of the holder"
	if st.Nemesis == NemesisPartition {
		p.Y.Label.Text = "partition of the holder from the nodes"
	}
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
	p.Add(cellsPlotter{agg: agg, g: g, setting: st, kind: kind})
	return p
}

// cellsPlotter draws the coloured, labelled cells of one panel.
type cellsPlotter struct {
	agg     map[Point]Agg
	g       Grid
	setting Setting
	kind    MapKind
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
			a, ok := cp.agg[pointOf(ttl, cp.setting, pause)]
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
	switch cp.kind {
	case AvailabilityMap:
		return availColour(a.SuccessRate), []string{fmt.Sprintf("%.0f%%", 100*a.SuccessRate), "of acquires ok", a.KN()}
	}
	lines := []string{a.KN()}
	if a.Unknown > 0 {
		lines = append(lines, fmt.Sprintf("%d unknown", a.Unknown))
	}
	late := fmt.Sprintf("%s of %s writes accepted late", trim1(a.LateWrites), trim1(a.Writes))
	if a.LateInOrder > 0 {
		late += fmt.Sprintf(" (+%s in token order)", trim1(a.LateInOrder))
	}
	lines = append(lines, fmt.Sprintf("%s violations/run", trim1(a.Violations)), late)
	return invalidColour(a), lines
}

// trim1 prints v with one decimal, or none when it is whole.
func trim1(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Colours of the violations map.
var (
	validFill   = color.NRGBA{R: 0xdc, G: 0xf0, B: 0xd8, A: 0xff}
	unknownFill = color.NRGBA{R: 0xfd, G: 0xe4, B: 0x9b, A: 0xff}
	paleRed     = color.NRGBA{R: 0xf4, G: 0xa5, B: 0x8a, A: 0xff}
	darkRed     = color.NRGBA{R: 0x9e, G: 0x10, B: 0x10, A: 0xff}
)

// invalidColour is a grid point's colour by its share of invalid runs:
// pale green for none (and no unknown run), amber for none invalid but
// some unknown, pale red (one of many) to dark red (all).
func invalidColour(a Agg) color.Color {
	switch {
	case a.Invalid == 0 && a.Unknown == 0:
		return validFill
	case a.Invalid == 0:
		return unknownFill
	}
	return lerp(paleRed, darkRed, float64(a.Invalid)/float64(max(a.Runs, 1)))
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
