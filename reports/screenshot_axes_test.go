package reports

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/internal/browsertest"
)

// verticalRuns finds the y axis lines in a screenshot: for each column in
// [0, maxX), the runs of at least minRun dark grey pixels, as (x, top y).
func verticalRuns(img image.Image, maxX, minRun int) [][2]int {
	var out [][2]int
	b := img.Bounds()
	for x := b.Min.X; x < min(b.Max.X, maxX); x++ {
		run := 0
		for y := b.Min.Y; y <= b.Max.Y; y++ {
			if y < b.Max.Y && darkGrey(img, x, y, 0xc0) {
				run++
				continue
			}
			if run >= minRun {
				out = append(out, [2]int{x, y - run})
			}
			run = 0
		}
	}
	return out
}

// In Chromium every time plot's y axis, panels included (4 operation
// types), sits at the same x on the page.
func TestScreenshotReportAxesLineUp(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	mustWrite(t, pauseResult(dir))
	img := browsertest.Screenshot(t, filepath.Join(dir, "index.html"), 7000)
	runs := verticalRuns(img, 400, 60)
	xs := map[int]int{}
	for _, r := range runs {
		xs[r[0]]++
	}
	t.Logf("y axis lines (x: count): %v; runs %v", xs, runs)
	// holders 1 + latency-raw 4 + quantiles 4 + rate 4 + fencing 1
	if len(runs) < 14 {
		t.Errorf("%d y axes on the page, want at least 14 (holders, 3 x 4 operation panels, fencing)", len(runs))
	}
	lo, hi := 1<<30, -1
	for x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi-lo > 2 {
		t.Errorf("y axes at x from %d to %d px: the time axes do not line up", lo, hi)
	}
}
