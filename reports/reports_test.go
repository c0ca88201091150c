package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

var pngFiles = []string{store.HoldersFile, store.LatencyRawFile, store.LatencyQuantileFile, store.RateFile, store.FencingFile}

// checkReport asserts what every report folder must hold: the files, PNGs
// that decode and are not blank, an index.html with the verdict, every
// plot inline and every anomaly's op indices, and a junit.xml with one
// test case per checker whose outcome matches the checker's verdict.
func checkReport(t *testing.T, res *analysis.Result) (index string, doc JUnitSuites) {
	t.Helper()
	for _, f := range append([]string{store.IndexFile, store.JUnitFile, store.PorcupineFile}, pngFiles...) {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	for _, f := range pngFiles {
		b, err := os.ReadFile(filepath.Join(res.Dir, f))
		if err != nil {
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s does not decode: %v", f, err)
			continue
		}
		if sz := img.Bounds().Size(); sz.X < 1000 || sz.Y < 400 || len(b) < 15_000 {
			t.Errorf("%s is %v, %d bytes: too small to be a real plot", f, sz, len(b))
		}
		if colours := distinctColours(img, 64); colours < 8 {
			t.Errorf("%s has %d distinct colours: looks blank", f, colours)
		}
	}
	b := storetest.Read(t, res.Dir, store.IndexFile)
	index = string(b)
	want := map[checker.Validity]string{checker.Valid: "VALID", checker.Invalid: "INVALID", checker.Unknown: "UNKNOWN"}[res.Verdict.Valid]
	if !strings.Contains(index, `<div class="big">`+want+`</div>`) {
		t.Errorf("index.html does not show the verdict %s", want)
	}
	if n := strings.Count(index, `src="data:image/png;base64,`); n != len(pngFiles) {
		t.Errorf("index.html embeds %d images, want %d", n, len(pngFiles))
	}
	if strings.Contains(index, `src="`+store.HoldersFile) {
		t.Error("index.html links an image instead of embedding it")
	}
	if !strings.Contains(index, fmt.Sprintf("--seed %d", res.Config.Seed)) {
		t.Error("index.html has no replay line with the seed")
	}
	for _, r := range res.Verdict.Results {
		for _, a := range r.Anomalies {
			if !strings.Contains(index, indexList(a.Ops, 60)) {
				t.Errorf("index.html lacks the op indices %v of %s/%s", a.Ops, r.Name, a.Kind)
			}
			if len(a.Ops) > 0 && !strings.Contains(index, fmt.Sprintf(`<td class="num">%d</td>`, a.Ops[0])) {
				t.Errorf("index.html does not show record %d of %s/%s", a.Ops[0], r.Name, a.Kind)
			}
		}
	}
	jb := []byte(storetest.Read(t, res.Dir, store.JUnitFile))
	if err := xml.Unmarshal(jb, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v", err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("junit.xml has %d test suites, want 1", len(doc.Suites))
	}
	checkJUnitCases(t, res, doc.Suites[0])
	return index, doc
}

// checkJUnitCases asserts that suite has one test case per checker of
// res whose outcome matches the checker's verdict, its failure naming
// the fatal anomalies' op indices.
func checkJUnitCases(t *testing.T, res *analysis.Result, suite JUnitSuite) {
	t.Helper()
	cases := map[string]JUnitCase{}
	for _, c := range suite.Cases {
		cases[c.Name] = c
	}
	for _, r := range res.Verdict.Results {
		c, ok := cases[r.Name]
		if !ok {
			t.Errorf("junit.xml has no test case for checker %s", r.Name)
			continue
		}
		if got := c.Failure != nil; got != (r.Valid == checker.Invalid) {
			t.Errorf("junit %s: failure=%v, checker verdict %v", r.Name, got, r.Valid)
		}
		if got := c.Error != nil; got != (r.Valid == checker.Unknown) {
			t.Errorf("junit %s: error=%v, checker verdict %v", r.Name, got, r.Valid)
		}
		for _, a := range r.Anomalies {
			if a.Fatal && c.Failure != nil && !strings.Contains(c.Failure.Text, indexList(a.Ops, 40)) {
				t.Errorf("junit %s failure lacks the op indices of %s", r.Name, a.Kind)
			}
		}
	}
}

// distinctColours counts distinct colours in img (sampling every 3rd
// pixel), stopping at limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
