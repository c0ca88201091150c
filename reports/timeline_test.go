package reports

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// The hand-built pause history on the timeline: one row per client slot,
// a box per operation with its outcome (the failed release, the acquire
// that never completed) and its label (f, then the value or the short
// token), the box an anomaly names marked, and the client-pause band.
func TestBuildTimelineBoxesAndBands(t *testing.T) {
	h, _ := pauseHistory()
	long := "25211190e7ff8fdbf03f87e5a8acb5fd"
	marks := map[int64]string{}
	var write int64 = -1
	for i := range h {
		if h[i].Token == "tok-c" {
			h[i].Token = long
		}
		if h[i].F == history.FWrite && h[i].Process == 0 && h[i].Type == history.OK {
			write = h[i].Index
			marks[write] = "exclusion write-after-validity (fatal)"
		}
	}
	ws := checker.FaultWindows(h)
	d, total := buildTimeline(detailOf(h, buildSlots(h, 3), ws, nil, nil, runLeases), endTime(h), maxTimelineBoxes, marks)
	if total != len(history.Pairs(h)) || len(d.Boxes) != total {
		t.Fatalf("%d boxes of %d operations, want all %d", len(d.Boxes), total, len(history.Pairs(h)))
	}
	if len(d.Rows) != 3 || !strings.HasPrefix(d.Rows[2], "c3 (p2, p3)") {
		t.Errorf("rows %q, want three client slots, c3 holding p2 and p3", d.Rows)
	}
	outcomes, labels, marked := map[int]int{}, map[string]bool{}, 0
	for _, b := range d.Boxes {
		outcomes[b.Outcome]++
		if b.End < b.Start {
			t.Errorf("box of op %d ends before it starts", b.Index)
		}
		labels[b.Label] = true
		if b.Anomalies != "" {
			marked++
			if b.Comp != write || b.Anomalies != marks[write] || b.Label != "write 1" {
				t.Errorf("marked box %+v, want only p0's write 1 (op %d)", b, write)
			}
		}
	}
	for _, want := range []string{"acquire tok-a", "read 0", "write 1", "release tok-b", "acquire 25211190…", "release 25211190…", "acquire"} {
		if !labels[want] {
			t.Errorf("no box says %q; labels %v", want, labels)
		}
	}
	if marked != 1 {
		t.Errorf("%d boxes marked, want 1", marked)
	}
	if outcomes[tlFail] != 1 || outcomes[tlInfo] != 1 || outcomes[tlOK] != total-2 {
		t.Errorf("outcomes %v, want 1 fail, 1 info, the rest ok", outcomes)
	}
	if len(d.Faults) != 1 || d.Faults[0].Kind != "client-pause" || d.Faults[0].Start != 10 || d.Faults[0].End != 612 {
		t.Errorf("fault bands %+v, want the client-pause from 10 to 612 ms", d.Faults)
	}
	if len(d.Faults) == 1 && (len(d.Faults[0].Rows) != 1 || d.Faults[0].Rows[0] != 0 || !strings.HasPrefix(d.Rows[0], "c1")) {
		t.Errorf("client-pause band on rows %v of %q, want only c1's row 0", d.Faults[0].Rows, d.Rows)
	}
}

// Above the box limit every fail and info operation and every one an
// anomaly names is kept, the other ok ones thinned evenly, within the
// limit, and the page says so.
func TestTimelineCapsBigHistories(t *testing.T) {
	h := bigHistory(5000, 4, 2)
	marks := map[int64]string{}
	for i := range h {
		if h[i].Type == history.OK && !h[i].IsNemesis() && i%97 == 0 {
			marks[h[i].Index] = "made up"
		}
	}
	d, total := buildTimeline(detailOf(h, buildSlots(h, 4), nil, nil, nil, runLeases), endTime(h), 1000, marks)
	if total < 5000 || len(d.Boxes) > 1000 || len(d.Boxes) < 500 {
		t.Fatalf("%d boxes of %d operations, want at most 1000 and not far below", len(d.Boxes), total)
	}
	notOK := 0
	for _, p := range history.Pairs(h) {
		if p.Completion < 0 || h[p.Completion].Type != history.OK {
			notOK++
		}
	}
	kept, drawn := 0, map[int64]bool{}
	for _, b := range d.Boxes {
		if b.Outcome != tlOK {
			kept++
		}
		drawn[b.Index], drawn[b.Comp] = true, true
	}
	if kept != min(notOK, 1000) {
		t.Errorf("kept %d fail/info boxes of %d", kept, notOK)
	}
	for op := range marks {
		if !drawn[op] {
			t.Errorf("marked op %d thinned out of a capped timeline", op)
		}
	}
	dir := t.TempDir()
	res := bigResult(dir, 30000)
	mustWrite(t, res)
	page := storetest.Read(t, dir, store.TimelineFile)
	if !strings.Contains(string(page), "above its limit of 20000 boxes") {
		t.Error("timeline.html of a 30000-op history does not say it is capped")
	}
}

// blend is colour c at opacity a over white.
func blend(c color.NRGBA, a float64) color.RGBA {
	f := func(v uint8) uint8 { return uint8(255 - a*(255-float64(v)) + 0.5) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), 255}
}

// timeline.html in Chromium: boxes in the outcome colours, the pause band
// full on c1's row and light elsewhere, hover text with op and times.
func TestScreenshotTimeline(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	mustWrite(t, pauseResult(dir))
	page := filepath.Join(dir, store.TimelineFile)
	img := browsertest.Screenshot(t, page, 500)
	for _, c := range []struct {
		name string
		col  color.NRGBA
		min  int
	}{{"ok", colOK, 200}, {"fail", colFail, 20}, {"info", colInfo, 20}} {
		want := color.RGBA{c.col.R, c.col.G, c.col.B, 255}
		if n := browsertest.CountNear(img, want, 12); n < c.min {
			t.Errorf("%s colour %v: %d pixels, want at least %d", c.name, want, n, c.min)
		}
	}
	band := blend(faultColour("client-pause"), tlBandOpacity)
	if n := browsertest.CountNear(img, band, 8); n < 500 {
		t.Errorf("client-pause band colour %v: %d pixels, want a shaded band", band, n)
	}
	strong, light := bandLines(img, band, 6), bandLines(img, blend(faultColour("client-pause"), tlLightOpacity), 3)
	if len(strong) == 0 || len(light) == 0 {
		t.Fatalf("client-pause band: %d screen lines strongly shaded, %d lightly; want both", len(strong), len(light))
	}
	top, bottom := strong[0], strong[len(strong)-1]
	if h := bottom - top + 1; h < 18 || h > 26 || len(strong) != h {
		t.Errorf("strong band on screen lines %d..%d (%d of them), want one row (22 px) only", top, bottom, len(strong))
	}
	var above, below int
	for _, y := range light {
		switch {
		case y < top:
			above++
		case y > bottom:
			below++
		default:
			t.Errorf("screen line %d is lightly shaded inside the strong band %d..%d", y, top, bottom)
		}
	}
	if above > 8 || below < 40 {
		t.Errorf("light band: %d lines above the strong one, %d below; want the strong band on the top row (c1) and light across the two rows under it", above, below)
	}
	dom := browsertest.DOM(t, page)
	if n := strings.Count(dom, `class="box `); n != len(history.Pairs(historyOf(pauseResult(dir)))) {
		t.Errorf("%d boxes in the DOM", n)
	}
	if !regexp.MustCompile(`<title>op 6: acquire ok, process 1, 0\.0200 s → 0\.3200 s \(300\.000 ms\)`).MatchString(dom) {
		t.Errorf("no hover text for op 6 (p1's acquire, 20 ms → 320 ms)")
	}
	if !strings.Contains(dom, `class="fault light"`) || !strings.Contains(dom, `class="fault row" data-kind="client-pause" data-row="0"`) {
		t.Error("no light client-pause band with a full band on row 0 in the DOM")
	}
}

// bandLines are the screen lines (y) of img with at least 20 pixels
// within tol of want, in order: where a band of that shade is drawn.
func bandLines(img image.Image, want color.RGBA, tol int) []int {
	var ys []int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		n := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			if browsertest.Near(img.At(x, y), want, tol) {
				n++
			}
		}
		if n >= 20 {
			ys = append(ys, y)
		}
	}
	return ys
}

// timeline.html#op=N in Chromium highlights record N's box, names it and
// scrolls to it; a fragment changed after loading moves the highlight.
func TestBrowserTimelineOpensAtOp(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	res := pauseResult(dir)
	mustWrite(t, res)
	var write, acquire int64 = -1, -1
	for _, op := range historyOf(res) {
		switch {
		case op.F == history.FWrite && op.Process == 0 && op.Type == history.OK:
			write = op.Index
		case op.F == history.FAcquire && op.Process == 1 && op.Type == history.Invoke:
			acquire = op.Index
		}
	}
	link := fmt.Sprintf("%s#op=%d", store.TimelineFile, write)
	dom := browsertest.DOM(t, opener(t, dir, link))
	if !strings.Contains(dom, fmt.Sprintf(`data-target-op="%d"`, write)) {
		t.Errorf("%s: the script did not take op %d as its target", link, write)
	}
	target := regexp.MustCompile(`<rect [^>]*class="box ok anomaly target"[^>]*data-comp="([0-9]+)"`).FindStringSubmatch(dom)
	if target == nil || target[1] != fmt.Sprint(write) {
		t.Errorf("%s: highlighted box %v, want the marked box completed by op %d", link, target, write)
	}
	if !regexp.MustCompile(fmt.Sprintf(`id="target-note">Op %d: op %d \(completed by op %d\), write ok on row c1`, write, write-1, write)).MatchString(dom) {
		t.Errorf("%s: the note does not name the write", link)
	}
	img := browsertest.Screenshot(t, opener(t, dir, link), 400)
	col := blend(color.NRGBA{0xff, 0xd3, 0x3d, 255}, 0.35)
	if n := browsertest.CountNear(img, col, 6); n < 300 {
		t.Errorf("%s: %d pixels of the highlight column on screen, want it scrolled into view", link, n)
	}
	if n := browsertest.CountNear(img, color.RGBA{0, 0, 0, 255}, 30); n < 100 {
		t.Errorf("%s: %d black pixels, want the target box's outline on screen", link, n)
	}
	// hashchange: the same page, its fragment changed by a script after load
	page := storetest.Read(t, dir, store.TimelineFile)
	moved := strings.Replace(string(page), "</body>", fmt.Sprintf(`<script>setTimeout(function () { location.hash = 'op=%d' }, 200)</script></body>`, acquire), 1)
	noErr(t, os.WriteFile(filepath.Join(dir, "moved.html"), []byte(moved), 0o644))
	dom = browsertest.DOM(t, opener(t, dir, fmt.Sprintf("moved.html#op=%d", write)))
	if !strings.Contains(dom, fmt.Sprintf(`data-target-op="%d"`, acquire)) ||
		!regexp.MustCompile(fmt.Sprintf(`class="box ok target"[^>]*data-op="%d"`, acquire)).MatchString(dom) {
		t.Errorf("after the fragment changed to op=%d the target did not move to p1's acquire", acquire)
	}
}
