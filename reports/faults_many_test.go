package reports

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Fault windows composed per pixel column (manyBands) look as shaded one
// by one (oneByOne): 8 x 8 blocks within three levels, pixels too but
// for 1% (row edges), on a plot and on a holders chart's rows.
func TestManyBandsShadeAsOneByOne(t *testing.T) {
	for _, c := range []struct {
		name  string
		kinds []string
		rows  bool
	}{
		{"partitions", []string{nemesis.KindPartition}, false},
		{"pauses on rows", []string{nemesis.KindClientPause}, true},
		{"both", []string{nemesis.KindPartition, nemesis.KindClientPause}, true},
	} {
		ws, rows := manyWindows(1500, c.kinds)
		if !c.rows {
			rows = nil
		}
		many, one := bandsImage(t, 5, rowFaultBands{Windows: ws, Rows: rows}), bandsImage(t, 5, oneByOne{Windows: ws, Rows: rows})
		pixels, pixelsOff := compareBlocks(many, one, 1, 3)
		blocks, blocksOff := compareBlocks(many, one, 8, 3)
		if pixels == 0 || blocksOff > 0 || pixelsOff > pixels/100 {
			t.Errorf("%s: %d of %d blocks and %d of %d pixels differ from the windows shaded one by one", c.name, blocksOff, blocks, pixelsOff, pixels)
		}
	}
}

// manyWindows are n fault windows of the kinds, a few ms long, some
// overlapping the next ones; rows gives every client-pause one of two
// rows.
func manyWindows(n int, kinds []string) (ws []checker.Window, rows [][]int) {
	for i := range n {
		w := checker.Window{Fault: kinds[i%len(kinds)], Start: int64(i) * 3e6, End: int64(i)*3e6 + int64(i%7)*1e6}
		if i%11 == 0 {
			w.End += 20e6
		}
		var r []int
		if w.Fault == nemesis.KindClientPause {
			r = []int{i % 2}
		}
		ws, rows = append(ws, w), append(rows, r)
	}
	return ws, rows
}

// bandsImage renders a plot of two rows over [0, xmax] s shaded by bands.
func bandsImage(t *testing.T, xmax float64, bands plot.Plotter) image.Image {
	t.Helper()
	p := newPlot("", "", "")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, xmax, -0.5, 1.5
	p.Add(bands)
	return must[image.Image](t)(png.Decode(bytes.NewReader(must[[]byte](t)(renderPNG(p, nil, figWidth, figHeight)))))
}

// compareBlocks counts the blocks of k x k pixels of the plots, and
// those whose mean colour in many is more than tol levels of a channel
// away from one's.
func compareBlocks(many, one image.Image, k, tol int) (blocks, off int) {
	b := many.Bounds()
	for y0 := b.Min.Y; y0+k <= b.Max.Y; y0 += k {
		for x0 := b.Min.X; x0+k <= b.Max.X; x0 += k {
			var d [3]int
			for y := y0; y < y0+k; y++ {
				for x := x0; x < x0+k; x++ {
					r1, g1, b1, _ := many.At(x, y).RGBA()
					r2, g2, b2, _ := one.At(x, y).RGBA()
					d[0], d[1], d[2] = d[0]+int(r1>>8)-int(r2>>8), d[1]+int(g1>>8)-int(g2>>8), d[2]+int(b1>>8)-int(b2>>8)
				}
			}
			blocks++
			for _, v := range d {
				if v > tol*k*k || v < -tol*k*k {
					off++
					break
				}
			}
		}
	}
	return blocks, off
}

// oneByOne is the test's oracle: fault windows shaded one by one, as
// the report did for up to a thousand windows before it composed them
// per pixel column (rowFaultBands' rows; nil: the whole height).
type oneByOne rowFaultBands

// Plot shades the windows one by one.
func (f oneByOne) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, w := range f.Windows {
		col := faultColour(w.Fault)
		x0, x1 := seconds(w.Start), seconds(w.End)
		var rows []int
		if i < len(f.Rows) {
			rows = f.Rows[i]
		}
		if len(rows) == 0 {
			a, b := trX(x0), trX(x1)
			if b-a < vg.Points(1) {
				b = a + vg.Points(1)
			}
			if pts := c.ClipPolygonX([]vg.Point{{X: a, Y: c.Min.Y}, {X: b, Y: c.Min.Y}, {X: b, Y: c.Max.Y}, {X: a, Y: c.Max.Y}}); len(pts) > 0 {
				c.FillPolygon(alpha(col, faultAlpha), pts)
			}
		} else {
			rect(c, p, x0, x1, p.Y.Min, p.Y.Max, alpha(col, faultBandsLight), nil)
			for _, r := range rows {
				rect(c, p, x0, x1, float64(r)-0.5, float64(r)+0.5, alpha(col, faultAlpha*2), nil)
			}
		}
		if w.Unhealed {
			x := max(trX(x1), trX(x0)+vg.Points(1))
			c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}, x, c.Min.Y, x, c.Max.Y)
		}
	}
}

// A client fault is shaded on its client's row only: drawn on two rows,
// its shade covers about half the area a whole-height band covers, and
// the other row gets the light band.
func TestRowFaultBandsShadeThePausedRow(t *testing.T) {
	ws := []checker.Window{{Fault: nemesis.KindClientPause, Start: 0, End: 1e9}}
	draw := func(rows [][]int, a uint8) (shade, light int) {
		img := bandsImage(t, 1, rowFaultBands{Windows: ws, Rows: rows})
		col := faultColour(ws[0].Fault)
		shadeCol := over(col, a)
		if rows != nil { // drawn over the light band
			shadeCol = overOn(over(col, faultBandsLight), col, a)
		}
		return browsertest.CountNear(img, shadeCol, 2),
			browsertest.CountNear(img, over(faultColour(ws[0].Fault), faultBandsLight), 2)
	}
	whole, _ := draw(nil, faultAlpha)              // a partition: the whole height
	row, light := draw([][]int{{0}}, faultAlpha*2) // a pause of row 0's client
	if whole == 0 || row < whole/3 || row > whole*2/3 || light < whole/3 {
		t.Errorf("full shade: %d px on one row of two, %d px over the whole height (want about half); light shade %d px", row, whole, light)
	}
}

// over is c at opacity a over white, as the PNG shows it.
func over(c color.NRGBA, a uint8) color.RGBA {
	return overOn(color.RGBA{0xff, 0xff, 0xff, 0xff}, c, a)
}

// overOn is c at opacity a over bg.
func overOn(bg color.RGBA, c color.NRGBA, a uint8) color.RGBA {
	mix := func(v, b uint8) uint8 { return uint8((int(v)*int(a) + int(b)*(255-int(a))) / 255) }
	return color.RGBA{mix(c.R, bg.R), mix(c.G, bg.G), mix(c.B, bg.B), 0xff}
}
