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

// maxIndexBytes is the bound index.html keeps for any history size.
const maxIndexBytes = 2 << 20

// fitInline links the largest figures instead of inlining them until the
// inline data fits maxInlineBytes, and leaves small pages alone.
func TestFitInline(t *testing.T) {
	big := template.URL(strings.Repeat("x", maxInlineBytes/2))
	figs := []figure{{File: "a.png", Data: "data:small"}, {File: "b.png", Data: big + "yy"}, {File: "c.png", Data: big}, {File: "d.png", Data: big + "y"}}
	if n := fitInline(figs); n != 2 {
		t.Fatalf("linked %d figures, want 2", n)
	}
	if figs[0].Data != "data:small" || figs[1].Data != "b.png" || figs[3].Data != "d.png" || figs[2].Data != big {
		t.Errorf("linked the wrong figures: %q %q %.10q %q", figs[0].Data, figs[1].Data, figs[2].Data, figs[3].Data)
	}
	small := []figure{{File: "a.png", Data: "data:a"}}
	if fitInline(small) != 0 || small[0].Data != "data:a" {
		t.Error("a small page lost its inline figure")
	}
}

// index.html stays under 2 MB for a big history (300k records with
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
	if err := Write(res); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, store.IndexFile)
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records: index.html %d bytes", len(res.History), fi.Size())
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
