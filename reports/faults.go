package reports

import (
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// faultColour is the kind's nemesis.Spec.Colour, for an unknown kind a
// stable colour from its name.
func faultColour(kind string) color.NRGBA {
	if s, ok := nemesis.Lookup(kind); ok {
		return s.Colour
	}
	h := fnv.New32a()
	h.Write([]byte(kind))
	v := h.Sum32()
	return rgb(uint8(v>>16)|0x40, uint8(v>>8)|0x40, uint8(v)|0x40)
}

// faultAlpha is the opacity of the shading: light enough to see points
// through, and two overlapping faults still read as darker.
const faultAlpha = 0x38

// faultLegend returns one legend entry per fault kind present, in a fixed
// order.
func faultLegend(ws []checker.Window) []legendItem {
	var kinds []string
	for _, w := range ws {
		kinds = append(kinds, w.Fault)
	}
	slices.Sort(kinds)
	var out []legendItem
	for _, k := range slices.Compact(kinds) {
		out = append(out, legendItem{Label: "fault: " + k, Thumb: swatch{Fill: alpha(faultColour(k), faultAlpha*2)}})
	}
	return out
}

// faultBandsLight is the opacity of a client fault's band across the rows
// of the clients it did not touch.
const faultBandsLight = 0x12

// rowFaultBands shades fault windows (manyBands; add it first): a window
// with Rows (client rows at y = 0, 1, ...) fully on them and lightly
// across the others, any other over the whole height.
type rowFaultBands struct {
	Windows []checker.Window
	// Rows are, per window, the rows of the clients its start record
	// names; nil: the whole height.
	Rows [][]int
}

// clientRows are, per window, the rows of the clients its start record
// names (faultClients).
func clientRows(h history.History, ws []checker.Window, sm slotMap) [][]int {
	out := make([][]int, len(ws))
	for i, w := range ws {
		if w.StartOp < 0 || w.StartOp >= int64(len(h)) {
			continue
		}
		for _, c := range faultClients(&h[w.StartOp]) {
			if n := slotIndex(c); n >= 0 && n < len(sm.Rows) && strings.HasPrefix(sm.Rows[n], c) {
				out[i] = append(out[i], n)
			}
		}
	}
	return out
}

// Plot shades the windows (manyBands).
func (f rowFaultBands) Plot(c draw.Canvas, p *plot.Plot) { manyBands(f.Windows, f.Rows, c, p) }

// pixel is the width of a pixel column of the report's images, in points.
const pixel = vg.Length(72.0 / figDPI)

// bandLayer is the fault bands of a plot composed per pixel column and
// horizontal slab (the rows a client fault shades apart), in drawing
// order, so that drawing it shows what drawing each band would; a shade
// of opacity a covering a fraction f of a column composes as a·f.
type bandLayer struct {
	c     draw.Canvas
	first int         // the canvas's first pixel column
	ys    []vg.Length // slab edges, bottom to top
	rgba  [][]float64 // per slab: premultiplied r, g, b, a per column
}

func newBandLayer(c draw.Canvas, edges []vg.Length) *bandLayer {
	ys := []vg.Length{c.Min.Y, c.Max.Y}
	for _, y := range edges {
		if y > c.Min.Y && y < c.Max.Y {
			ys = append(ys, y)
		}
	}
	slices.Sort(ys)
	ys = slices.Compact(ys)
	first := int(math.Floor(float64(c.Min.X / pixel)))
	n := int(math.Ceil(float64(c.Max.X/pixel))) - first
	l := &bandLayer{c: c, first: first, ys: ys, rgba: make([][]float64, len(ys)-1)}
	for i := range l.rgba {
		l.rgba[i] = make([]float64, 4*n)
	}
	return l
}

// add composes a shade of col at opacity a over [x0, x1] (at least a
// point wide) x [y0, y1], y0 and y1 slab edges.
func (l *bandLayer) add(col color.NRGBA, a uint8, x0, x1, y0, y1 vg.Length) {
	if x1-x0 < vg.Points(1) {
		x1 = x0 + vg.Points(1)
	}
	lo, hi := math.Max(float64(x0), float64(l.c.Min.X)), math.Min(float64(x1), float64(l.c.Max.X))
	px, n := float64(pixel), len(l.rgba[0])/4
	for col0 := int(lo / px); hi > lo && col0 < l.first+n && float64(col0)*px < hi; col0++ {
		f := (math.Min(hi, float64(col0+1)*px) - math.Max(lo, float64(col0)*px)) / px
		i := col0 - l.first
		if i < 0 || f <= 0 {
			continue
		}
		op := float64(a) / 255 * f
		for s := range l.rgba {
			if l.ys[s] < y0 || l.ys[s+1] > y1 {
				continue
			}
			p := l.rgba[s][4*i : 4*i+4]
			p[0] = float64(col.R)/255*op + p[0]*(1-op)
			p[1] = float64(col.G)/255*op + p[1]*(1-op)
			p[2] = float64(col.B)/255*op + p[2]*(1-op)
			p[3] = op + p[3]*(1-op)
		}
	}
}

// draw fills each slab's stretches of columns of one colour.
func (l *bandLayer) draw() {
	for s, ps := range l.rgba {
		colour := func(i int) color.NRGBA {
			a := ps[4*i+3]
			if a <= 0 {
				return color.NRGBA{}
			}
			c := func(v float64) uint8 { return uint8(math.Round(math.Min(v/a, 1) * 255)) }
			return color.NRGBA{R: c(ps[4*i]), G: c(ps[4*i+1]), B: c(ps[4*i+2]), A: uint8(math.Round(a * 255))}
		}
		from, n := 0, len(ps)/4
		for i := 1; i <= n; i++ {
			if i < n && colour(i) == colour(from) {
				continue
			}
			if c := colour(from); c.A > 0 {
				x0, x1 := vg.Length(l.first+from)*pixel, vg.Length(l.first+i)*pixel
				y0, y1 := l.ys[s], l.ys[s+1]
				l.c.FillPolygon(c, l.c.ClipPolygonX([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
			}
			from = i
		}
	}
}

// manyBands shades fault windows as rowFaultBands says, in one composed
// layer (bandLayer).
func manyBands(ws []checker.Window, rows [][]int, c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rowY := func(r int) (vg.Length, vg.Length) {
		return max(trY(float64(r)-0.5), c.Min.Y), min(trY(float64(r)+0.5), c.Max.Y)
	}
	var edges []vg.Length
	for _, rs := range rows {
		for _, r := range rs {
			y0, y1 := rowY(r)
			edges = append(edges, y0, y1)
		}
	}
	l := newBandLayer(c, edges)
	for i, w := range ws {
		col := faultColour(w.Fault)
		x0, x1 := trX(seconds(w.Start)), trX(seconds(w.End))
		if i >= len(rows) || len(rows[i]) == 0 {
			l.add(col, faultAlpha, x0, x1, c.Min.Y, c.Max.Y)
			continue
		}
		l.add(col, faultBandsLight, x0, x1, c.Min.Y, c.Max.Y)
		for _, r := range rows[i] {
			y0, y1 := rowY(r)
			l.add(col, faultAlpha*2, x0, x1, y0, y1)
		}
	}
	l.draw()
	for _, w := range ws {
		if w.Unhealed {
			x := max(trX(seconds(w.End)), trX(seconds(w.Start))+vg.Points(1))
			c.StrokeLine2(draw.LineStyle{Color: faultColour(w.Fault), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}},
				x, c.Min.Y, x, c.Max.Y)
		}
	}
}
