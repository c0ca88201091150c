package reports

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/workloads"
)

// lowerBig makes histories of n records or more big for the test.
func lowerBig(t *testing.T, n int) {
	old := harness.BigHistoryRecords
	harness.BigHistoryRecords = n
	t.Cleanup(func() { harness.BigHistoryRecords = old })
}

// A real short run (real redis-server, a holder pause and a partition)
// analysed with the big-history threshold lowered below its length is
// checked streamed with the verdict of its in-memory check, and gets a
// report from the file: index.html under 2 MB saying plainly what covers
// the whole run and what is a window, holders, latency and rate plots,
// and no plot of the in-memory report's that it could not draw.
func TestBigHistoryReportRealRun(t *testing.T) {
	plan := nemesis.Scripted(1500*time.Millisecond,
		nemesis.Step{At: 400 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 200 * time.Millisecond},
		nemesis.Step{At: 900 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindPartition}, Duration: 200 * time.Millisecond})
	res := storetest.Run(t, harness.Run, harness.Config{Lock: "single", Workload: "counter", Clients: 4, TTL: 200 * time.Millisecond,
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: 2 * time.Millisecond, Think: time.Millisecond},
		Plan:      &plan, TimeLimit: plan.End, MinCoverage: -1, Seed: 5, Store: t.TempDir()})
	if res.HistoryFile != "" {
		t.Fatalf("a %d-record run was checked streamed at the default threshold", res.Records)
	}
	assertOccupancy(t, res.History, 4)
	lowerBig(t, len(res.History)/2)
	big, _, err := harness.Analyze(context.Background(), res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if big.HistoryFile == "" || big.History != nil {
		t.Fatalf("analyze with the threshold at %d kept %d records in memory", harness.BigHistoryRecords, len(big.History))
	}
	if big.Verdict.Valid != res.Verdict.Valid || big.Verdict.Error != res.Verdict.Error {
		t.Errorf("streamed verdict %v %q, in-memory %v %q", big.Verdict.Valid, big.Verdict.Error, res.Verdict.Valid, res.Verdict.Error)
	}
	if err := Write(big); err != nil {
		t.Fatal(err)
	}
	index := assertBigReport(t, big.Dir)
	if !strings.Contains(index, "no anomaly names a record") && !strings.Contains(index, "Windows, not the whole run") {
		t.Error("index.html does not say whether holders.png has windows")
	}
	if b := storetest.Read(t, big.Dir, store.JUnitFile); !strings.Contains(b, big.Verdict.Valid.String()) {
		t.Errorf("junit.xml does not carry the verdict %v", big.Verdict.Valid)
	}
}

// assertBigReport checks a big history's report folder and returns its
// index.html.
func assertBigReport(t *testing.T, dir string) string {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, store.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= maxIndexBytes {
		t.Errorf("index.html is %d bytes, want under %d", fi.Size(), maxIndexBytes)
	}
	index := storetest.Read(t, dir, store.IndexFile)
	for _, want := range []string{"Big history: what this report shows", "Whole run:", "Not drawn for a history this big", "Timeline (not drawn: big history)"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html does not say %q", want)
		}
	}
	for _, f := range []string{store.HoldersFile, store.LatencyRawFile, store.LatencyQuantileFile, store.RateFile, store.PorcupineFile, store.TimelineFile, store.JUnitFile} {
		if !store.Exists(dir, f) {
			t.Errorf("%s not written", f)
		}
	}
	if store.Exists(dir, store.WritesFile) != store.Exists(dir, store.FencingFile) {
		t.Errorf("%s exists %v, %s %v: it is drawn from the resource's log", store.FencingFile, store.Exists(dir, store.FencingFile), store.WritesFile, store.Exists(dir, store.WritesFile))
	}
	return index
}

// A generated big history with anomalies spread over it gets, from its
// file, holders windows and porcupine segments around the anomalies,
// the anomalies' records listed from the file, and a page that names the
// records each window read.
func TestBigHistoryReportWindows(t *testing.T) {
	dir := t.TempDir()
	res := bigResult(dir, 40_000)
	injectAnomalies(res, 3)
	if err := history.WriteFile(filepath.Join(dir, store.HistoryFile), res.History); err != nil {
		t.Fatal(err)
	}
	lowerBig(t, 1000)
	want := res.History
	res.History, res.HistoryFile, res.Records = nil, filepath.Join(dir, store.HistoryFile), len(want)
	if err := Write(res); err != nil {
		t.Fatal(err)
	}
	index := assertBigReport(t, dir)
	if !strings.Contains(index, "Windows, not the whole run") || !strings.Contains(index, "window 1: records ") {
		t.Error("index.html does not name the records read for the windows")
	}
	a := res.Verdict.Results[0].Anomalies[0]
	if r := want[a.Ops[0]]; !strings.Contains(index, r.Token) && r.Token != "" {
		t.Errorf("index.html does not list the anomaly's record %d (token %s)", a.Ops[0], r.Token)
	}
	porc := storetest.Read(t, dir, store.PorcupineFile)
	if !strings.Contains(porc, "failing segment 1") {
		t.Errorf("porcupine.html is not a failing segment's page: %.300s", porc)
	}
	// the plots streamed over the whole history are the in-memory ones
	mem := *res
	mem.Dir, mem.History, mem.HistoryFile = t.TempDir(), want, ""
	if err := Write(&mem); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{store.LatencyRawFile, store.RateFile} {
		if storetest.Read(t, dir, f) != storetest.Read(t, mem.Dir, f) {
			t.Errorf("%s streamed differs from %s drawn in memory", f, f)
		}
	}
}

// The holders overview streamed record by record is the in-memory
// one (newOccupancy over holds and overlaps) of the same history: the
// same leases, pairs held at once, and per row and column the same
// shares held and held late, the same overlap marks.
func TestStreamOccupancyEqualsInMemory(t *testing.T) {
	assertOccupancy(t, bigHistory(20_000, 8, 1), 8)
	h, _ := pauseHistory()
	assertOccupancy(t, h, 3)
}

// assertOccupancy fails unless the overview of h streamed equals the
// in-memory one.
func assertOccupancy(t *testing.T, h history.History, clients int) {
	t.Helper()
	end := endTime(h)
	hs := holds(h)
	ovs := overlaps(hs)
	sm := buildSlots(h, clients)
	want := newOccupancy(holdersChart{hs: hs, ovs: ovs, slots: sm, h: h}, xMax(end))
	st := newSlotTracker(clients)
	got := newStreamOccupancy(st, xMax(end))
	for i := range h {
		st.add(&h[i])
		got.add(&h[i])
	}
	got.finish()
	t.Logf("%d records: %d leases, %d pairs at once", len(h), got.leases, got.pairs)
	if got.leases != len(hs) || got.pairs != len(ovs) {
		t.Errorf("streamed %d leases, %d pairs at once; in memory %d, %d", got.leases, got.pairs, len(hs), len(ovs))
	}
	for r := range min(want.rows, got.rows) {
		for c := range want.cols {
			if math.Abs(got.held[r][c]-want.held[r][c]) > 1e-9 || math.Abs(got.late[r][c]-want.late[r][c]) > 1e-9 || got.clash[r][c] != want.clash[r][c] {
				t.Fatalf("row %d column %d: streamed held %.4f late %.4f clash %v, in memory %.4f %.4f %v",
					r, c, got.held[r][c], got.late[r][c], got.clash[r][c], want.held[r][c], want.late[r][c], want.clash[r][c])
			}
		}
	}
}

// A page whose text alone would not fit (thousands of fault windows, a
// checker's details listing each) lists the first maxPageRows windows
// and plan steps and the start of the details, saying so, and stays
// under maxIndexBytes; a page that fits is left whole.
func TestTrimPageOfManyWindows(t *testing.T) {
	page := pageData{Name: "many"}
	for i := range 5000 {
		page.Windows = append(page.Windows, checker.Window{Fault: "partition", Start: int64(i) * 1e9, End: int64(i)*1e9 + 5e8, StartOp: int64(2 * i), StopOp: int64(2*i + 1)})
		page.Plan = append(page.Plan, planRow{At: fmt.Sprint(i), Kind: "partition", Fault: "partition n1", Duration: "500ms"})
	}
	page.Checkers = []checkerView{{Name: "liveness", Verdict: "valid", Details: strings.Repeat("{\"window\": 12345678},\n", 100_000)}}
	b, err := renderIndex(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if len(b) >= maxIndexBytes || !strings.Contains(s, "4800 more fault windows") || !strings.Contains(s, "4800 more steps") || !strings.Contains(s, "cut here") {
		t.Errorf("page of %d bytes does not say what it cut", len(b))
	}
	small := pageData{Name: "few", Windows: page.Windows[:300], Checkers: []checkerView{{Name: "liveness", Details: strings.Repeat("x\n", 20_000)}}}
	if b, _ := renderIndex(small); strings.Contains(string(b), "more fault windows") || strings.Contains(string(b), "cut here") {
		t.Error("a page that fits was cut")
	}
}

// A big history's fencing.png reads the resource's log entry by entry:
// whole up to maxFenceSample entries, then every k-th and every stale
// one, each stale one with the key's exact highest token before it.
func TestSampleFences(t *testing.T) {
	var ws []resource.Write
	for i := range 5000 {
		w := resource.Write{Time: int64(i) * 1e6, Key: "k", Fence: int64(i + 1), Accepted: true}
		if i%500 == 7 {
			w.Fence, w.Stale, w.Accepted = int64(i-3), true, false
		}
		ws = append(ws, w)
	}
	path := filepath.Join(t.TempDir(), store.WritesFile)
	if err := store.WriteJSONL(path, ws); err != nil {
		t.Fatal(err)
	}
	want, _ := fencePoints(nil, ws)
	pts, title, err := sampleFences(path)
	if err != nil || len(pts) != len(want) || strings.Contains(title, "sample") {
		t.Fatalf("under the bound: %d points (want %d), title %q, %v", len(pts), len(want), title, err)
	}
	old := maxFenceSample
	maxFenceSample = 1000
	t.Cleanup(func() { maxFenceSample = old })
	pts, title, err = sampleFences(path)
	if err != nil || !strings.Contains(title, "every 5th of 5000") {
		t.Fatalf("title %q, %v", title, err)
	}
	stale := 0
	for _, p := range pts {
		if p.stale {
			stale++
			if w := want[p.t/1e6]; p.highest != w.highest || p.fence != w.fence {
				t.Errorf("stale point at %d: highest %d fence %d, want %d %d", p.t, p.highest, p.fence, w.highest, w.fence)
			}
		}
	}
	if stale != 10 || len(pts) > 1000+stale {
		t.Errorf("%d points, %d stale: want every 5th and the 10 stale", len(pts), stale)
	}
}

// A real short run of a lock that breaks under a holder pause
// (unsafe-del), analysed as a big history, gets the in-memory check's
// anomalies (kinds and records) and a report whose holders windows and
// porcupine segments are drawn around them, listing their records read
// from the file.
func TestBigHistoryReportRealAnomalies(t *testing.T) {
	res := storetest.Run(t, harness.Run, harness.Config{Lock: "unsafe-del", Workload: "counter", Clients: 4, TTL: 200 * time.Millisecond,
		Nemesis: []string{"client-pause"}, FaultInterval: 500 * time.Millisecond, TimeLimit: 2 * time.Second, Seed: 5, Store: t.TempDir()})
	var want []checker.Anomaly
	for _, r := range res.Verdict.Results {
		want = append(want, r.Anomalies...)
	}
	if len(want) == 0 {
		t.Skipf("the run found no anomaly to draw windows around (verdict %v)", res.Verdict.Valid)
	}
	lowerBig(t, len(res.History)/2)
	big, _, err := harness.Analyze(context.Background(), res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []checker.Anomaly
	for _, r := range big.Verdict.Results {
		got = append(got, r.Anomalies...)
	}
	if big.HistoryFile == "" || big.Verdict.Valid != res.Verdict.Valid || fmt.Sprint(kindsOps(got)) != fmt.Sprint(kindsOps(want)) {
		t.Fatalf("streamed (file %q): %v %v; in memory %v %v", big.HistoryFile, big.Verdict.Valid, kindsOps(got), res.Verdict.Valid, kindsOps(want))
	}
	if err := Write(big); err != nil {
		t.Fatal(err)
	}
	index := assertBigReport(t, big.Dir)
	if !strings.Contains(index, "window 1: records ") {
		t.Error("index.html names no window of records read around the anomalies")
	}
	op := want[0].Ops[0]
	if !strings.Contains(index, fmt.Sprintf(`<tr class="mono"><td class="num">%d</td>`, op)) {
		t.Errorf("index.html does not list the first anomaly's record %d", op)
	}
	if porc := storetest.Read(t, big.Dir, store.PorcupineFile) + storetest.Read(t, big.Dir, store.PorcupineCounterFile); !strings.Contains(porc, "failing segment 1") {
		t.Error("no porcupine page of a failing segment")
	}
}

// kindsOps are the anomalies' kinds with their records.
func kindsOps(as []checker.Anomaly) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprint(a.Kind, a.Ops))
	}
	return out
}
