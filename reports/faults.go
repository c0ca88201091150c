package reports

import (
	"hash/fnv"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/nemesis"
)

// faultColour is the kind's colour, the one its nemesis registered
// (nemesis.Spec.Colour), so that a kind looks the same in every plot and
// every report; unknown kinds get a stable colour from their name.
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

// faultBands shades each fault window over the whole height of the data
// area. Add it to a plot first, so data is drawn on top.
type faultBands struct {
	Windows []checker.Window
}

// Plot shades the windows; a window shorter than a pixel still shows as a
// one-point line.
func (f faultBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, w := range f.Windows {
		x0, x1 := trX(seconds(w.Start)), trX(seconds(w.End))
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		col := alpha(faultColour(w.Fault), faultAlpha)
		pts := c.ClipPolygonX([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		if len(pts) > 0 {
			c.FillPolygon(col, pts)
		}
		if w.Unhealed {
			c.StrokeLine2(draw.LineStyle{Color: faultColour(w.Fault), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}},
				x1, c.Min.Y, x1, c.Max.Y)
		}
	}
}

// faultLegend returns one legend entry per fault kind present, in a fixed
// order.
func faultLegend(ws []checker.Window) []legendItem {
	var kinds []string
	for _, w := range ws {
		if !slices.Contains(kinds, w.Fault) {
			kinds = append(kinds, w.Fault)
		}
	}
	slices.Sort(kinds)
	var out []legendItem
	for _, k := range kinds {
		out = append(out, legendItem{Label: "fault: " + k, Thumb: swatch{Fill: alpha(faultColour(k), faultAlpha*2)}})
	}
	return out
}
