package sweep

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/browsertest"
)

// rgba is c as the screenshot's colour type.
func rgba(c color.Color) color.RGBA {
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

// The sweep page in a real browser, from a hand-made sweep (no runs):
// the violations heat map renders with its green (0/3 invalid), red (2/3
// invalid) and amber (unknown) cells near the top of the page, and the
// DOM after rendering shows k/N per setting and the recommendation line.
// Skipped only when Chromium is missing. Keep the screenshot and the
// heat maps with LOCKSTORM_SCREENSHOT_DIR=dir.
func TestScreenshotSweepPage(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	res := handMade(t, dir, config.TopologyStandalone)
	if err := WriteOutputs(res); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("LOCKSTORM_SCREENSHOT_DIR"); keep != "" {
		for _, f := range []string{ViolationsFile, AvailabilityFile} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			_ = os.WriteFile(filepath.Join(keep, "sweep-"+f), b, 0o644)
		}
	}
	page := filepath.Join(dir, IndexFile)
	img := browsertest.Screenshot(t, page, 1000)
	for _, c := range []struct {
		what string
		want color.Color
	}{
		{"green of 0/3 invalid", validFill},
		{"red of 2/3 invalid", invalidColour(Agg{Runs: 3, Invalid: 2})},
		{"amber of an unknown run", unknownFill},
	} {
		if n := browsertest.CountNear(img, rgba(c.want), 6); n < 2000 {
			t.Errorf("the %s covers %d pixels of the screenshot: the violations heat map did not render", c.what, n)
		}
	}
	dom := browsertest.DOM(t, page)
	if !strings.Contains(dom, `id="recommendation">`+res.Recommendation.Text) {
		t.Errorf("the DOM lacks the recommendation %q", res.Recommendation.Text)
	}
	if !strings.Contains(res.Recommendation.Text, "smallest TTL with 0 of 3 invalid up to pauses of 300ms") {
		t.Errorf("recommendation %q", res.Recommendation.Text)
	}
	if n := strings.Count(dom, "2/3 invalid"); n != 8 { // the points realistic makes invalid
		t.Errorf("the DOM shows 2/3 invalid %d times, want 8", n)
	}
}
