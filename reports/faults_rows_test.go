package reports

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A client fault is shaded on its client's row only: drawn on two rows,
// its shade covers about half the area a whole-height band covers, and
// the other row gets the light band.
func TestRowFaultBandsShadeThePausedRow(t *testing.T) {
	ws := []checker.Window{{Fault: nemesis.KindClientPause, Start: 0, End: 1e9}}
	draw := func(rows [][]int, a uint8) (shade, light int) {
		p := newPlot("", "", "")
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, -0.5, 1.5
		p.Add(rowFaultBands{Windows: ws, Rows: rows})
		b := must[[]byte](t)(renderPNG(p, nil, figWidth, figHeight))
		img := must[image.Image](t)(png.Decode(bytes.NewReader(b)))
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
