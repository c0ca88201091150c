package reports

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The report renders in a real browser: headless Chromium screenshots the
// hand-built invalid report, and the screenshot shows the red INVALID
// banner at the top and the plots further down. Skipped with -short and
// when Debian's chromium is not installed (apt-get install -y chromium).
// Keep the screenshot with LOCKSTORM_SCREENSHOT=path.png.
func TestScreenshot(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshot test skipped with -short")
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		if _, err := exec.LookPath("chromium-browser"); err != nil {
			t.Skip("chromium not installed (apt-get install -y chromium): report not checked in a browser")
		}
	}
	dir := t.TempDir()
	res := pauseResult(dir)
	if err := Write(res); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "screenshot.png")
	if keep := os.Getenv("LOCKSTORM_SCREENSHOT"); keep != "" {
		out, _ = filepath.Abs(keep)
	}
	cmd := exec.Command("./screenshot.sh", dir, out, "3000")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screenshot.sh: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 1280 || sz.Y != 3000 {
		t.Fatalf("screenshot is %v, want 1280x3000", sz)
	}
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
