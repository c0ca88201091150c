package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/workloads"
)

// lowerWhole makes the report keep histories of at most n records whole,
// for the test.
func lowerWhole(t *testing.T, n int64) {
	old := maxWholeRecords
	maxWholeRecords = n
	t.Cleanup(func() { maxWholeRecords = old })
}

// storedResult is res as analysing its run folder leaves it: its history
// read from history.jsonl (its Source the file) and the resource's log
// from writes.jsonl.
func storedResult(res *analysis.Result) *analysis.Result {
	out := *res
	out.History, out.Writes, out.Records = history.File(filepath.Join(res.Dir, store.HistoryFile)), nil, len(historyOf(res))
	return &out
}

// A real short run (redis-server, a holder pause, a partition) longer
// than the report keeps whole gets its report from its stored files.
func TestBigHistoryReportRealRun(t *testing.T) {
	plan := nemesis.Scripted(1500*time.Millisecond,
		nemesis.Step{At: 400 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 200 * time.Millisecond},
		nemesis.Step{At: 900 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindPartition}, Duration: 200 * time.Millisecond})
	res := storetest.Run(t, harness.Run, config.Config{Lock: "single", Workload: "counter", Clients: 4, TTL: 200 * time.Millisecond,
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: 2 * time.Millisecond, Think: time.Millisecond},
		Plan:      &plan, TimeLimit: plan.End, MinCoverage: -1, Seed: 5, Store: t.TempDir()})
	assertOccupancy(t, historyOf(res), 4)
	lowerWhole(t, int64(res.Records/2))
	big := storedResult(res)
	mustWrite(t, big)
	index := assertBigReport(t, big.Dir)
	if !strings.Contains(index, "no anomaly names a record") && !strings.Contains(index, "Spans, not the whole run") {
		t.Error("index.html does not say whether holders.png has anomaly spans")
	}
	if b := storetest.Read(t, big.Dir, store.JUnitFile); !strings.Contains(b, big.Verdict.Valid.String()) {
		t.Errorf("junit.xml does not carry the verdict %v", big.Verdict.Valid)
	}
}

// assertBigReport checks the report folder of a history longer than the
// report keeps whole and returns its index.html.
func assertBigReport(t *testing.T, dir string) string {
	t.Helper()
	fi := must[os.FileInfo](t)(os.Stat(filepath.Join(dir, store.IndexFile)))
	if fi.Size() >= maxIndexBytes {
		t.Errorf("index.html is %d bytes, want under %d", fi.Size(), maxIndexBytes)
	}
	index := storetest.Read(t, dir, store.IndexFile)
	for _, want := range []string{"Big history: what this report shows", "Whole run:", "Not drawn for a history this long", "Timeline (not drawn: big history)"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html does not say %q", want)
		}
	}
	for _, f := range []string{store.HoldersFile, store.LatencyRawFile, store.LatencyQuantileFile, store.RateFile, store.FencingFile, store.PorcupineFile, store.TimelineFile, store.JUnitFile} {
		if !store.Exists(dir, f) {
			t.Errorf("%s not written", f)
		}
	}
	if tl := storetest.Read(t, dir, store.TimelineFile); !strings.Contains(tl, "not drawn") {
		t.Errorf("timeline.html does not say it is not drawn: %.200s", tl)
	}
	return index
}

// A generated history longer than the report keeps whole gets from its
// file holders spans naming the records read, the anomalies' records,
// a porcupine page saying it has no search, and the plots drawn whole.
func TestBigHistoryReportSpans(t *testing.T) {
	res := bigResult(t.TempDir(), 40_000)
	injectAnomalies(res, 3)
	want := historyOf(res)
	noErr(t, history.WriteFile(filepath.Join(res.Dir, store.HistoryFile), want))
	mem := *res
	mem.Dir = t.TempDir()
	mustWrite(t, &mem)
	lowerWhole(t, 1000)
	res = storedResult(res)
	mustWrite(t, res)
	index := assertBigReport(t, res.Dir)
	if !strings.Contains(index, "Spans, not the whole run") || !strings.Contains(index, "span 1: records ") {
		t.Error("index.html does not name the records read for the anomaly spans")
	}
	a := res.Verdict.Results[0].Anomalies[0]
	if r := want[a.Ops[0]]; !strings.Contains(index, r.Token) && r.Token != "" {
		t.Errorf("index.html does not list the anomaly's record %d (token %s)", a.Ops[0], r.Token)
	}
	porc := storetest.Read(t, res.Dir, store.PorcupineFile)
	if !strings.Contains(porc, "kept none to draw") { // the verdict is made up: no search
		t.Errorf("porcupine.html does not say the check kept no search: %.300s", porc)
	}
	for _, f := range []string{store.LatencyRawFile, store.LatencyQuantileFile, store.RateFile, store.FencingFile} {
		if storetest.Read(t, res.Dir, f) != storetest.Read(t, mem.Dir, f) {
			t.Errorf("%s of the history read from its file differs from %s drawn whole", f, f)
		}
	}
}

// A page whose text alone would not fit is cut (trimPage), saying so;
// a page that fits is left whole.
func TestTrimPageOfManyWindows(t *testing.T) {
	page := pageData{Name: "many"}
	for i := range 5000 {
		page.Windows = append(page.Windows, checker.Window{Fault: "partition", Start: int64(i) * 1e9, End: int64(i)*1e9 + 5e8, StartOp: int64(2 * i), StopOp: int64(2*i + 1)})
		page.Plan = append(page.Plan, planRow{At: fmt.Sprint(i), Kind: "partition", Fault: "partition n1", Duration: "500ms"})
	}
	page.Checkers = []checkerView{{Name: "liveness", Verdict: "valid", Details: strings.Repeat("{\"window\": 12345678},\n", 100_000)}}
	b := must[[]byte](t)(renderIndex(page))
	s := string(b)
	if len(b) >= maxIndexBytes || !strings.Contains(s, "4800 more fault windows") || !strings.Contains(s, "4800 more steps") || !strings.Contains(s, "cut here") {
		t.Errorf("page of %d bytes does not say what it cut", len(b))
	}
	small := pageData{Name: "few", Windows: page.Windows[:300], Checkers: []checkerView{{Name: "liveness", Details: strings.Repeat("x\n", 20_000)}}}
	if b, _ := renderIndex(small); strings.Contains(string(b), "more fault windows") || strings.Contains(string(b), "cut here") {
		t.Error("a page that fits was cut")
	}
}

// fencing.png reads the resource's log entry by entry: whole up to
// maxFenceSample entries, then every k-th and every stale one, each stale
// one with the key's exact highest token before it.
func TestSampleFences(t *testing.T) {
	var ws []resource.Write
	for i := range 5000 {
		w := resource.Write{Time: int64(i) * 1e6, Key: "k", Fence: int64(i + 1), Accepted: true}
		if i%500 == 7 {
			w.Fence, w.Stale, w.Accepted = int64(i-3), true, false
		}
		ws = append(ws, w)
	}
	dir := t.TempDir()
	noErr(t, store.WriteJSONL(filepath.Join(dir, store.WritesFile), ws))
	res := &analysis.Result{Dir: dir}
	want := oldFencePoints(nil, ws)
	f := passOfResult(t, res).fenceLog
	if len(f.pts) != len(want) || strings.Contains(f.title(), "sample") {
		t.Fatalf("under the bound: %d points (want %d), title %q", len(f.pts), len(want), f.title())
	}
	old := maxFenceSample
	maxFenceSample = 1000
	t.Cleanup(func() { maxFenceSample = old })
	f = passOfResult(t, res).fenceLog
	if !strings.Contains(f.title(), "every 5th of 5000") {
		t.Fatalf("title %q", f.title())
	}
	stale := 0
	for _, p := range f.pts {
		if p.stale {
			stale++
			if w := want[p.t/1e6]; p.highest != w.highest || p.fence != w.fence {
				t.Errorf("stale point at %d: highest %d fence %d, want %d %d", p.t, p.highest, p.fence, w.highest, w.fence)
			}
		}
	}
	if stale != 10 || len(f.pts) > 1000+stale {
		t.Errorf("%d points, %d stale: want every 5th and the 10 stale", len(f.pts), stale)
	}
}

// A real unsafe-del run broken by a holder pause, longer than the report
// keeps whole: spans around its anomalies, their records listed, and the
// check's own porcupine search.
func TestBigHistoryReportRealAnomalies(t *testing.T) {
	res := storetest.Run(t, harness.Run, config.Config{Lock: "unsafe-del", Workload: "counter", Clients: 4, TTL: 200 * time.Millisecond,
		Nemesis: []string{"client-pause"}, FaultInterval: 500 * time.Millisecond, TimeLimit: 2 * time.Second, Seed: 5, Store: t.TempDir()})
	var want []checker.Anomaly
	for _, r := range res.Verdict.Results {
		want = append(want, r.Anomalies...)
	}
	if len(want) == 0 {
		t.Skipf("the run found no anomaly to draw spans around (verdict %v)", res.Verdict.Valid)
	}
	lowerWhole(t, int64(res.Records/2))
	big := storedResult(res)
	mustWrite(t, big)
	index := assertBigReport(t, big.Dir)
	if !strings.Contains(index, "span 1: records ") {
		t.Error("index.html names no span of records read around the anomalies")
	}
	op := want[0].Ops[0]
	if !strings.Contains(index, fmt.Sprintf(`<tr class="mono"><td class="num">%d</td>`, op)) {
		t.Errorf("index.html does not list the first anomaly's record %d", op)
	}
	if porc := storetest.Read(t, big.Dir, store.PorcupineFile); !strings.Contains(porc, "const data") {
		t.Error("porcupine.html is not drawn from the check's search")
	}
}
