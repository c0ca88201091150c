package reports

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
)

// Busy blocks merge what overlaps; widening moves a window's ends out to
// the quiescent points around it.
func TestBusyBlocksWiden(t *testing.T) {
	sp := []span{
		{Call: 10, Done: 20, Completed: true},
		{Call: 15, Done: 30, Completed: true},
		{Call: 50, Done: 60, Completed: true},
		{Call: 90, Completed: false},                                                   // never completed: busy to the end
		{F: history.FAcquire, Call: 30, Done: 52, Completed: true, Type: history.Fail}, // took nothing: not busy
	}
	hs := []hold{
		{Start: 55, End: 65, Validity: 80, Ended: "gone"},     // alive to its validity
		{Start: 20, End: 25, Validity: 400, Ended: "release"}, // released: not alive past 25
	}
	got := busyBlocks(sp, hs, 100)
	want := []interval{{10, 30}, {50, 80}, {90, 100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	for _, c := range []struct{ lo, hi, wlo, whi int64 }{
		{25, 27, 10, 30}, {35, 40, 35, 40}, {58, 95, 50, 100}, {0, 5, 0, 5},
	} {
		if lo, hi := widen(got, c.lo, c.hi); lo != c.wlo || hi != c.whi {
			t.Errorf("widen(%d, %d) = %d, %d; want %d, %d", c.lo, c.hi, lo, hi, c.wlo, c.whi)
		}
	}
}

// A failing segment of a big history holds the failing op (the one its
// links point at), keeps whole operations and leases, is cut at
// quiescent points in a history that has them, renumbers its processes
// from 0 (one porcupine row each), and checks as valid on its own when the history is valid.
func TestSegmentsHoldFailingOp(t *testing.T) {
	h := bigHistory(30000, 8, 4)
	var as []checker.Anomaly
	for _, at := range []int{len(h) / 5, len(h) / 2, len(h) * 4 / 5} {
		for h[at].F != history.FAcquire || h[at].Type != history.OK {
			at++
		}
		as = append(as, checker.Anomaly{Kind: "nonlinearizable", Ops: []int64{int64(at) - 1, int64(at)}, Fatal: true})
	}
	segs, left := newSegmenter(historyDetail(h, nil, nil, 8), nil).segments(as, windowPad(300*time.Millisecond), store.PorcupineFile)
	if len(segs) != 3 || left != 0 {
		t.Fatalf("%d segments, %d left; want 3, 0", len(segs), left)
	}
	for i, s := range segs {
		failing := as[i].Ops[1]
		if s.File != segmentFile(store.PorcupineFile, i) {
			t.Errorf("segment %d: file %s", i, s.File)
		}
		if failing < s.First || failing > s.Last {
			t.Errorf("segment %d: records %d..%d miss the failing op %d", i, s.First, s.Last, failing)
		}
		found := false
		for _, r := range s.Sub {
			found = found || r.Index == failing
			if !r.IsNemesis() && (r.Process < 0 || r.Process >= len(s.Rows)) {
				t.Fatalf("segment %d: record %d has process %d, want one of the %d renumbered rows", i, r.Index, r.Process, len(s.Rows))
			}
		}
		if !found {
			t.Errorf("segment %d: failing op %d is not in it", i, failing)
		}
		if !s.Quiescent || s.OpCount == 0 || s.OpCount > maxSegmentOps {
			t.Errorf("segment %d: quiescent %v, %d ops", i, s.Quiescent, s.OpCount)
		}
		if !strings.Contains(s.Note(30000), fmt.Sprintf("records %d..%d", s.First, s.Last)) {
			t.Errorf("segment %d: note %q does not say which records it shows", i, s.Note(30000))
		}
		sub := append(history.History(nil), s.Sub...)
		for j := range sub {
			sub[j].Index = int64(j)
		}
		if err := checker.Validate(sub); err != nil {
			t.Errorf("segment %d is not a well-formed history: %v", i, err)
		}
		if r := checker.NewLock().Check(context.Background(), sub); r.Valid != checker.Valid {
			t.Errorf("segment %d of a valid history checks %v: %s %v", i, r.Valid, r.Error, r.Anomalies)
		}
	}
}

// segmentResult is a synthetic counter run of about 3000 operations with
// four made-up anomalies, written with porcupine pages limited to 500
// operations, so that it is a "big" history for porcupine.
func segmentResult(t *testing.T) (dir string, links []string) {
	t.Helper()
	dir = t.TempDir()
	res := bigResult(dir, 3000)
	res.Config.Workload = "counter"
	injectAnomalies(res, 4)
	if err := WriteWith(res, Options{PorcupineMaxOps: 500}); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, store.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`href="((?:porcupine[a-z0-9-]*|timeline)\.html#op=[0-9]+)"`).FindAllStringSubmatch(string(index), -1) {
		links = append(links, m[1])
	}
	if !strings.Contains(string(index), "too many for one porcupine page") {
		t.Error("index.html does not say the porcupine pages show segments")
	}
	return dir, links
}

// Write draws one page per failing segment, lock and counter, each
// saying which records it shows; a small history keeps its whole pages.
func TestWriteSegmentPages(t *testing.T) {
	small := t.TempDir()
	if err := Write(pauseResult(small)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{store.PorcupineFile, store.PorcupineCounterFile} {
		b, err := os.ReadFile(filepath.Join(small, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "lockstormSegments = [") || strings.Contains(string(b), "failing segment") {
			t.Errorf("small history: %s is drawn as a segment", f)
		}
	}
	if _, err := os.Stat(filepath.Join(small, "porcupine-2.html")); err == nil {
		t.Error("small history: porcupine-2.html written")
	}
	dir, links := segmentResult(t)
	if len(links) != 4 {
		t.Errorf("index.html links %v, want one per anomaly", links)
	}
	for _, f := range []string{"porcupine.html", "porcupine-2.html", "porcupine-counter.html", "porcupine-counter-2.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "failing segment") || !strings.Contains(string(b), `id="lockstorm-segment">This page shows one segment`) ||
			!strings.Contains(string(b), "lockstormSegments = [") {
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
	dir, links := segmentResult(t)
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
