package reports

import (
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
)

// fitInline links the largest figures instead of inlining them until the
// inline data fits the budget, and leaves small pages alone.
func TestFitInline(t *testing.T) {
	const budget = 1_000_000
	big := template.URL(strings.Repeat("x", budget*2/3))
	figs := []figure{{File: "a.png", Data: "data:small"}, {File: "b.png", Data: big + "yy"}, {File: "c.png", Data: big}, {File: "d.png", Data: big + "y"}}
	if n := fitInline(figs, budget); n != 2 {
		t.Fatalf("linked %d figures, want 2", n)
	}
	if figs[0].Data != "data:small" || figs[1].Data != "b.png" || figs[3].Data != "d.png" || figs[2].Data != big {
		t.Errorf("linked the wrong figures: %q %q %.10q %q", figs[0].Data, figs[1].Data, figs[2].Data, figs[3].Data)
	}
	held := []figure{{File: store.HoldersFile, Data: big + "zzz"}, {File: "b.png", Data: big}, {File: "c.png", Data: big}}
	if n := fitInline(held, budget); n != 2 || held[0].Data == store.HoldersFile {
		t.Errorf("linked %d figures, holders.png among them: %v; want the two others", n, held[0].Data == store.HoldersFile)
	}
	small := []figure{{File: "a.png", Data: "data:a"}}
	if fitInline(small, budget) != 0 || small[0].Data != "data:a" {
		t.Error("a small page lost its inline figure")
	}
}

// index.html stays under 2 MB (maxIndexBytes) for a big history (300k records with
// -short, 1M without) with anomalies, and still renders in Chromium with
// its plots, every one of them found.
func TestBrowserIndexSizeBound(t *testing.T) {
	records := 1_000_000
	if testing.Short() {
		records = 300_000
	}
	dir := t.TempDir()
	res := bigResult(dir, records/2)
	injectAnomalies(res, 6)
	mustWrite(t, res)
	page := filepath.Join(dir, store.IndexFile)
	fi := must[os.FileInfo](t)(os.Stat(page))
	t.Logf("%d records: index.html %d bytes", len(historyOf(res)), fi.Size())
	if fi.Size() >= maxIndexBytes {
		t.Errorf("index.html is %d bytes, want under %d", fi.Size(), maxIndexBytes)
	}
	b, _ := os.ReadFile(page)
	for _, m := range regexp.MustCompile(`<img src="([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		if !strings.HasPrefix(m[1], "data:") && !store.Exists(dir, m[1]) {
			t.Errorf("index.html links %s, which is not in the run folder", m[1])
		}
	}
	browsertest.Require(t)
	dom := browsertest.DOM(t, page)
	for _, f := range []string{store.HoldersFile, store.LatencyRawFile, store.FencingFile} {
		if !strings.Contains(dom, `<figure id="`+f+`"`) {
			t.Errorf("the rendered page has no figure %s", f)
		}
	}
	if !strings.Contains(dom, "INVALID") && !strings.Contains(dom, "invalid") {
		t.Error("the rendered page does not show the verdict")
	}
	img := browsertest.Screenshot(t, page, 4000)
	if n := browsertest.DistinctColours(img, 4); n < 100 {
		t.Errorf("the rendered page has %d distinct colours: its plots did not draw", n)
	}
}

// renderIndex keeps the page under maxIndexBytes by linking the largest
// figures, and inlines every figure of a page that fits.
func TestRenderIndexBudget(t *testing.T) {
	res := pauseResult(t.TempDir())
	s := passOfResult(t, res)
	huge := template.URL("data:image/png;base64," + strings.Repeat("A", 700_000))
	figs := []figure{{File: "a.png", Data: huge}, {File: "b.png", Data: huge}, {File: "c.png", Data: huge}, {File: "d.png", Data: "data:image/png;base64,AAAA"}}
	b := must[[]byte](t)(renderIndex(buildPage(res, s, figs, nil, nil, "")))
	if len(b) >= maxIndexBytes {
		t.Errorf("index.html is %d bytes, want under %d", len(b), maxIndexBytes)
	}
	if n := strings.Count(string(b), `src="data:`); n != 3 {
		t.Errorf("%d figures inline, want 3 (two big ones and the small one)", n)
	}
	small := []figure{{File: "a.png", Data: "data:image/png;base64,AAAA"}, {File: "b.png", Data: "data:image/png;base64,BBBB"}}
	b = must[[]byte](t)(renderIndex(buildPage(res, s, small, nil, nil, "")))
	if n := strings.Count(string(b), `src="data:`); n != 2 {
		t.Errorf("small page: %d figures inline, want both", n)
	}
}
