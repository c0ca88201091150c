package browsertest

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A page with a red block and a script that adds text: the screenshot
// shows the red, and the DOM holds what the script wrote.
func TestScreenshotAndDOM(t *testing.T) {
	Require(t)
	page := filepath.Join(t.TempDir(), "p.html")
	html := `<!doctype html><html><body style="margin:0;background:#fff">
<div style="width:200px;height:100px;background:#c62828"></div>
<div id="x"></div><script>document.getElementById("x").textContent = "drawn by script";</script>
</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	img := Screenshot(t, page, 300)
	red := color.RGBA{0xc6, 0x28, 0x28, 0xff}
	if !Near(img.At(50, 50), red, 8) {
		t.Errorf("pixel (50,50) = %v, want the red block", img.At(50, 50))
	}
	if n := CountNear(img, red, 8); n < 200*100*9/10 {
		t.Errorf("%d red pixels, want about 20000", n)
	}
	if Near(img.At(600, 200), red, 8) {
		t.Error("pixel (600,200) is red: the block is too big")
	}
	if dom := DOM(t, page); !strings.Contains(dom, "drawn by script") {
		t.Errorf("DOM does not hold the script's text:\n%s", dom)
	}
}
