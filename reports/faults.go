package reports

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
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
	if len(f.Windows) > maxBands {
		manyBands(f.Windows, nil, c, p)
		return
	}
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

// faultBandsLight is the opacity of a client fault's band across the rows
// of the clients it did not touch.
const faultBandsLight = 0x12

// rowFaultBands shades fault windows on a chart with one row per client
// (holders.png, rows at y = 0, 1, ... in data units): a window whose
// start record names clients (a client pause, a client crash) is shaded
// fully only on those clients' rows and lightly across the others, so the
// paused client reads at a glance; any other window (a partition, a
// server pause) is shaded over the whole height as faultBands does.
type rowFaultBands struct {
	Windows []checker.Window
	// Rows are, per window, the rows of the clients its start record
	// names; nil: the whole height.
	Rows [][]int
}

// clientRows finds, for each window, the rows of the clients its start
// record names (h[w.StartOp].Clients, or its Detail's clients=), through
// the slot map; nil when it names none that are rows.
func clientRows(h history.History, ws []checker.Window, sm slotMap) [][]int {
	out := make([][]int, len(ws))
	for i, w := range ws {
		if w.StartOp < 0 || w.StartOp >= int64(len(h)) {
			continue
		}
		for _, c := range faultClients(&h[w.StartOp]) {
			var n int
			if _, err := fmt.Sscanf(c, "c%d", &n); err == nil && n >= 1 && n <= len(sm.Rows) && strings.HasPrefix(sm.Rows[n-1], c) {
				out[i] = append(out[i], n-1)
			}
		}
	}
	return out
}

// Plot shades the windows.
func (f rowFaultBands) Plot(c draw.Canvas, p *plot.Plot) {
	if len(f.Windows) > maxBands {
		manyBands(f.Windows, f.Rows, c, p)
		return
	}
	for i, w := range f.Windows {
		col := faultColour(w.Fault)
		var rows []int
		if i < len(f.Rows) {
			rows = f.Rows[i]
		}
		if len(rows) == 0 {
			faultBands{Windows: []checker.Window{w}}.Plot(c, p)
			continue
		}
		x0, x1 := seconds(w.Start), seconds(w.End)
		rect(c, p, x0, x1, p.Y.Min, p.Y.Max, alpha(col, faultBandsLight), nil)
		for _, r := range rows {
			rect(c, p, x0, x1, float64(r)-0.5, float64(r)+0.5, alpha(col, faultAlpha*2), nil)
		}
		if w.Unhealed {
			trX, _ := p.Transforms(&c)
			c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}},
				trX(x1), c.Min.Y, trX(x1), c.Max.Y)
		}
	}
}
