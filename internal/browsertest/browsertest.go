// Package browsertest renders lockstorm's self-contained HTML pages in
// headless Chromium (Debian's `chromium`) for tests that look at what a
// reader sees: a screenshot's pixels, or the DOM after the scripts ran.
// A test calls Require first, which skips it when no Chromium is installed.
package browsertest

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Width is the browser window's width in CSS pixels, and so the
// screenshot's width.
const Width = 1280

// timeout bounds one Chromium invocation.
const timeout = 60 * time.Second

// Binary returns the Chromium executable on PATH, or "" when none is.
func Binary() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Require skips t when no Chromium is installed.
func Require(t testing.TB) {
	t.Helper()
	if Binary() == "" {
		t.Skip("chromium not installed (apt-get install -y chromium, or make test): page not checked in a browser")
	}
}

// run runs headless Chromium on the page with extra flags and returns its
// stdout.
func run(t testing.TB, page string, extra ...string) []byte {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	profile := t.TempDir()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + profile, "--no-first-run", "--disable-extensions",
		"--virtual-time-budget=5000",
	}
	args = append(args, extra...)
	args = append(args, "file://"+abs)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Binary(), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b := stderr.Bytes()
		t.Fatalf("chromium on %s: %v\n%s", page, err, b[max(0, len(b)-2000):])
	}
	return stdout.Bytes()
}

// Screenshot renders page (an HTML file) in a window Width × height CSS
// pixels and returns the screenshot. Set LOCKSTORM_SCREENSHOT_DIR to keep
// the PNGs, named after the test.
func Screenshot(t testing.TB, page string, height int) image.Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "shot.png")
	if dir := os.Getenv("LOCKSTORM_SCREENSHOT_DIR"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		out, _ = filepath.Abs(filepath.Join(dir, sanitize(t.Name())+".png"))
	}
	run(t, page, "--window-size="+strconv.Itoa(Width)+","+strconv.Itoa(height), "--screenshot="+out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if sz := img.Bounds().Size(); sz.X != Width || sz.Y != height {
		t.Fatalf("screenshot is %v, want %dx%d", sz, Width, height)
	}
	return img
}

// DOM returns the page's DOM serialised after its scripts ran: what a
// reader's browser shows, as HTML text.
func DOM(t testing.TB, page string) string {
	t.Helper()
	return string(run(t, page, "--dump-dom"))
}

// DistinctColours counts the distinct colours in img, sampling every
// step-th pixel of every step-th row (step 1 looks at every pixel). A
// blank or text-only page has few; rendered plots have hundreds.
func DistinctColours(img image.Image, step int) int {
	if step < 1 {
		step = 1
	}
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}] = true
		}
	}
	return len(seen)
}

// CountNear counts the pixels of img within tol (per channel, 0–255) of
// want: how much of a colour the page shows.
func CountNear(img image.Image, want color.RGBA, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if Near(img.At(x, y), want, tol) {
				n++
			}
		}
	}
	return n
}

// Near reports whether c is within tol of want in each of R, G and B.
func Near(c color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool {
		x := int(a>>8) - int(w)
		return x <= tol && x >= -tol
	}
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}
