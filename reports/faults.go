package reports

import (
	"hash/fnv"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
)

// faultColours gives each fault kind a fixed colour, so that a kind looks
// the same in every plot and every report. Red is left for overlaps and
// failures.
var faultColours = map[string]color.NRGBA{
	"partition":    rgb(0x94, 0x67, 0xbd), // purple
	"latency":      rgb(0x17, 0xbe, 0xcf), // teal
	"client-pause": rgb(0xe6, 0xb4, 0x00), // amber
	"client-crash": rgb(0xe3, 0x77, 0xc2), // pink
	"server-pause": rgb(0x8c, 0x56, 0x4b), // brown
	"crash":        rgb(0x55, 0x55, 0x55), // dark grey
	"clock-jump":   rgb(0x2c, 0xa0, 0x2c), // green
	"failover":     rgb(0x1f, 0x3a, 0x93), // navy
}

// faultColour is the kind's colour; unknown kinds get a stable colour from
// their name.
func faultColour(kind string) color.NRGBA {
	if c, ok := faultColours[kind]; ok {
		return c
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
