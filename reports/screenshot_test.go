package reports

import (
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/internal/browsertest"
)

// Headless Chromium shows the invalid report's red banner and its plots
// (the screenshot kept with LOCKSTORM_SCREENSHOT_DIR=dir).
func TestScreenshot(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	res := pauseResult(dir)
	mustWrite(t, res)
	img := browsertest.Screenshot(t, filepath.Join(dir, "index.html"), 3000)
	// The banner: the invalid red (#c62828) near the top left.
	r, g, b, _ := img.At(40, 20).RGBA()
	if r>>8 < 0xb0 || g>>8 > 0x50 || b>>8 > 0x50 {
		t.Errorf("pixel at the top is rgb(%d,%d,%d), not the INVALID banner's red", r>>8, g>>8, b>>8)
	}
	// Further down, the plots: many distinct colours, not a blank page.
	if n := distinctColours(img, 200); n < 100 {
		t.Errorf("screenshot has only %d distinct colours: the plots did not render", n)
	}
}
