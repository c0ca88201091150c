package reports

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Density plots: above maxRawPoints client operations, latency-raw.png
// and fencing.png draw their groups of more than maxExactGroup points as
// a 2-D histogram; smaller (rare) groups keep their glyphs, on top.
const (
	// maxExactGroup is the largest group of points a dense plot still
	// draws point by point.
	maxExactGroup = 2000
	// heatCols and heatRows are a density layer's cells across the time
	// axis and up the value axis (about 4 x 2.5 px each on a
	// latency-raw.png panel); fencing.png, a single taller plot, uses
	// fenceHeatRows.
	heatCols      = 240
	heatRows      = 60
	fenceHeatRows = 150
)

// dense reports whether a run of n client operations gets density plots
// rather than one glyph per operation.
func dense(n int) bool { return n > maxRawPoints }

// heatLayer is a 2-D histogram of points over [xmin,xmax] x [ymin,ymax]
// in heatCols x rows cells (log-spaced up y when logY), each filled with
// col at an opacity growing with the log of its count.
type heatLayer struct {
	counts                 []int32 // rows rows of heatCols, row 0 at ymin
	rows                   int
	xmin, xmax, ymin, ymax float64
	logY                   bool
	col                    color.NRGBA
	max                    int32
	n                      int // points counted
}

// newHeat counts xys into a heatLayer over the given range; points
// outside it are clamped to the edge cells.
func newHeat(xys plotter.XYs, rows int, xmin, xmax, ymin, ymax float64, logY bool, col color.NRGBA) *heatLayer {
	hl := emptyHeat(rows, xmin, xmax, ymin, ymax, logY, col)
	for _, pt := range xys {
		hl.add(pt.X, pt.Y)
	}
	return hl
}

// emptyHeat is a heatLayer with no point yet, to add points one at a
// time (a history read record by record).
func emptyHeat(rows int, xmin, xmax, ymin, ymax float64, logY bool, col color.NRGBA) *heatLayer {
	return &heatLayer{counts: make([]int32, heatCols*rows), rows: rows, xmin: xmin, xmax: xmax, ymin: ymin, ymax: ymax,
		logY: logY, col: col}
}

// add counts the point (x, y).
func (hl *heatLayer) add(x, y float64) {
	i := hl.cell(x, y)
	hl.counts[i]++
	hl.max = max(hl.max, hl.counts[i])
	hl.n++
}

// frac maps y to [0,1) up the layer's y range (log-spaced when logY).
func (hl *heatLayer) frac(y float64) float64 {
	if hl.logY {
		return (math.Log(y) - math.Log(hl.ymin)) / (math.Log(hl.ymax) - math.Log(hl.ymin) + 1e-12)
	}
	return (y - hl.ymin) / (hl.ymax - hl.ymin + 1e-12)
}

// cell is the index into counts of the cell holding (x, y).
func (hl *heatLayer) cell(x, y float64) int {
	cx := int((x - hl.xmin) / (hl.xmax - hl.xmin + 1e-12) * heatCols)
	cy := int(hl.frac(y) * float64(hl.rows))
	cx, cy = min(max(cx, 0), heatCols-1), min(max(cy, 0), hl.rows-1)
	return cy*heatCols + cx
}

// yAt is the lower edge of cell row j in data units.
func (hl *heatLayer) yAt(j int) float64 {
	f := float64(j) / float64(hl.rows)
	if hl.logY {
		return math.Exp(math.Log(hl.ymin) + f*(math.Log(hl.ymax)-math.Log(hl.ymin)))
	}
	return hl.ymin + f*(hl.ymax-hl.ymin)
}

// shade is the colour of a cell holding n points.
func (hl *heatLayer) shade(n int32) color.NRGBA {
	f := 1.0
	if hl.max > 1 {
		f = math.Log1p(float64(n)) / math.Log1p(float64(hl.max))
	}
	return alpha(hl.col, uint8(0x60+f*(0xff-0x60)))
}

// Plot fills the cells.
func (hl *heatLayer) Plot(c draw.Canvas, p *plot.Plot) {
	w := (hl.xmax - hl.xmin) / heatCols
	for j := range hl.rows {
		y0, y1 := hl.yAt(j), hl.yAt(j+1)
		for i := range heatCols {
			if n := hl.counts[j*heatCols+i]; n > 0 {
				x0 := hl.xmin + float64(i)*w
				rect(c, p, x0, x0+w, y0, y1, hl.shade(n), nil)
			}
		}
	}
}

// heatThumb is a density layer's legend thumbnail: its colour from light
// to opaque, left to right.
type heatThumb struct{ col color.NRGBA }

// Thumbnail draws four boxes of growing opacity.
func (h heatThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	w := (r.Max.X - r.Min.X) / 4
	for i := range 4 {
		x := r.Min.X + vg.Length(i)*w
		c.FillPolygon(alpha(h.col, uint8(0x60+i*0x33)), []vg.Point{{X: x, Y: r.Min.Y}, {X: x + w, Y: r.Min.Y}, {X: x + w, Y: r.Max.Y}, {X: x, Y: r.Max.Y}})
	}
}

// opaque is c without transparency (a glyph colour reused for a density
// layer, whose cells set their own opacity).
func opaque(c color.Color) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = 0xff
	return n
}
