package reports

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// segmentResult is a synthetic counter run of 16000 operations, longer
// than the check reads as one segment, with two holders at once
// injected in three places past its first segment and a stale read,
// checked.
func segmentResult(t *testing.T) (dir string, res *analysis.Result, links []string) {
	t.Helper()
	dir = t.TempDir()
	res = bigResult(dir, 16_000)
	h := must[history.History](t)(history.ReadAll(res.History))
	for _, at := range []int{7, 8, 9} {
		h = injectDoubleGrant(h, len(h)*at/10)
	}
	h = injectStaleRead(h, len(h)*8/10) // the counter's critical sections fail too
	res.History = history.Slice(h)
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	mustWrite(t, res)
	index := storetest.Read(t, dir, store.IndexFile)
	for _, m := range regexp.MustCompile(`href="((?:porcupine[a-z0-9-]*|timeline)\.html#op=[0-9]+)"`).FindAllStringSubmatch(string(index), -1) {
		links = append(links, m[1])
	}
	if !strings.Contains(string(index), "checked in segments: porcupine.html shows the failing segment of records") {
		t.Error("index.html does not say the porcupine pages show segments")
	}
	return dir, res, links
}

// Write draws one page per failing segment the check kept, lock and
// counter, each saying which records it shows (a small history keeps its
// whole pages: TestWriteInvalid).
func TestWriteSegmentPages(t *testing.T) {
	dir, res, _ := segmentResult(t)
	failing := res.Verdict.Results[0].Details.(checker.LockDetails).Failing
	if len(failing) != 3 {
		t.Fatalf("the lock check kept %d failing segments, want 3", len(failing))
	}
	for i, z := range failing {
		if z.Processes == nil || z.First <= 0 || z.Last < z.First || z.Valid() != checker.Invalid {
			t.Errorf("failing segment %d: records %d..%d, rows %v, %v", i, z.First, z.Last, z.Processes, z.Valid())
		}
	}
	for _, f := range []string{"porcupine.html", "porcupine-2.html", "porcupine-3.html", "porcupine-counter.html"} {
		if b := storetest.Read(t, dir, f); !strings.Contains(b, `id="lockstorm-segment">This page shows one failing segment`) || !strings.Contains(b, "lockstormSegments = [") {
			t.Errorf("%s: not a segment page", f)
		}
	}
}

// In Chromium, every porcupine anomaly link of a big history's
// index.html opens the segment page holding its op with the op
// selected, and a link to porcupine.html at an op of porcupine-2.html
// goes on to that page.
func TestBrowserSegmentLinks(t *testing.T) {
	browsertest.Require(t)
	dir, res, links := segmentResult(t)
	// The check names one lock anomaly (its first failing segment); the
	// overlaps in later segments link to the timeline. A link to
	// porcupine.html at an op a later segment's page draws must go on to
	// that page.
	second := res.Verdict.Results[0].Details.(checker.LockDetails).Failing[1]
	for _, r := range res.Verdict.Results {
		for _, a := range r.Anomalies {
			if last := a.Ops[len(a.Ops)-1]; r.Name == "exclusion" && last >= second.First && last <= second.Last {
				links = append(links, fmt.Sprintf("%s#op=%d", store.PorcupineFile, last))
			}
		}
	}
	redirected := false
	for _, l := range links {
		if strings.HasPrefix(l, store.TimelineFile) {
			continue // TestAnomalyLinksDrawTheirOp
		}
		l = strings.Replace(l, "porcupine-2.html", "porcupine.html", 1)
		dom := browsertest.DOM(t, opener(t, dir, l))
		op := l[strings.Index(l, "=")+1:]
		if !strings.Contains(dom, `data-lockstorm-op="`+op+`"`) {
			t.Errorf("%s: op %s not selected", l, op)
		}
		if !strings.Contains(dom, "Op "+op+" (ops ") {
			t.Errorf("%s: the page does not hold op %s itself", l, op)
		}
		redirected = redirected || strings.Contains(dom, "segment 2 of")
	}
	if !redirected {
		t.Error("no link went on to a second segment's page")
	}
}
