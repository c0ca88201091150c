package reports

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
)

// TestMeasureWrite writes the report of a synthetic history of about
// LOCKSTORM_MEASURE_RECORDS records (bigHistory with half as many client
// operations) into LOCKSTORM_MEASURE_DIR and logs the write time and the
// sizes of index.html and the whole folder. Skipped unless both are set:
//
//	LOCKSTORM_MEASURE_RECORDS=1000000 LOCKSTORM_MEASURE_DIR=/tmp/m go test -run MeasureWrite ./reports
//
// LOCKSTORM_MEASURE_ANOMALIES=k names k made-up anomalies spread over the
// run (injectAnomalies), to see the spans drawn around them.
//
// Run the test binary under /usr/bin/time -v for its peak RSS.
func TestMeasureWrite(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LOCKSTORM_MEASURE_RECORDS"))
	dir := os.Getenv("LOCKSTORM_MEASURE_DIR")
	if n <= 0 || dir == "" {
		t.Skip("set LOCKSTORM_MEASURE_RECORDS and LOCKSTORM_MEASURE_DIR")
	}
	noErr(t, os.MkdirAll(dir, 0o755))
	res := bigResult(dir, n/2)
	res.Verdict.Valid, res.Verdict.Error = checker.Unknown, "synthetic history; not checked"
	k, _ := strconv.Atoi(os.Getenv("LOCKSTORM_MEASURE_ANOMALIES"))
	injectAnomalies(res, k)
	start := time.Now()
	mustWrite(t, res)
	took := time.Since(start)
	var total int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			total += fi.Size()
			t.Logf("  %-28s %10d", e.Name(), fi.Size())
		}
	}
	fi := must[os.FileInfo](t)(os.Stat(filepath.Join(dir, store.IndexFile)))
	t.Logf("records %d: write %v, index.html %d bytes, folder %d bytes", res.Records, took, fi.Size(), total)
}

// injectAnomalies adds k made-up fatal anomalies to res's lock and
// resource checkers, spread evenly over the history, each naming a
// write's invoke and completion and, for the lock checker, the next
// acquire's records (the ops of a synthetic anomaly; the history itself
// is unchanged).
func injectAnomalies(res *analysis.Result, k int) {
	h := historyOf(res)
	for j := range k {
		at := len(h) * (2*j + 1) / (2 * k)
		var ops []int64
		for i := at; i < len(h) && len(ops) < 4; i++ {
			if f := h[i].F; len(ops) < 2 && f == history.FWrite || len(ops) >= 2 && f == history.FAcquire {
				ops = append(ops, int64(i))
			}
		}
		part := &res.Verdict.Results[j%len(res.Verdict.Results)]
		kind := "nonlinearizable"
		if part.Name == "resource" {
			kind, ops = "lost-update", ops[:min(2, len(ops))] // the write alone: a counter page shows no acquires
		}
		part.Anomalies = append(part.Anomalies, checker.Anomaly{Kind: kind, Ops: ops, Fatal: true, Text: "made up by the test"})
		part.Valid = checker.Invalid
	}
	if k > 0 {
		res.Verdict.Valid = checker.Invalid
	}
}

// TestMeasureWriteFile writes the report of the history file
// LOCKSTORM_MEASURE_HISTORY (e.g. one make bench-analyze generated) into
// a temporary folder and logs the write time; run the test binary under
// /usr/bin/time -v for its peak RSS. The result is the history's, read
// from its file, with a valid verdict and k made-up anomalies
// (LOCKSTORM_MEASURE_ANOMALIES); with LOCKSTORM_MEASURE_RUN, a run
// folder holding that history, also its configuration, plan and resource
// log. Skipped unless LOCKSTORM_MEASURE_HISTORY is set.
func TestMeasureWriteFile(t *testing.T) {
	path := os.Getenv("LOCKSTORM_MEASURE_HISTORY")
	if path == "" {
		t.Skip("set LOCKSTORM_MEASURE_HISTORY")
	}
	n := must[int](t)(history.CountLines(path))
	res := bigResult(t.TempDir(), 0)
	res.History, res.Records = history.File(path), n
	res.Config.TTL = 100 * time.Millisecond
	if run := os.Getenv("LOCKSTORM_MEASURE_RUN"); run != "" {
		// a run folder: its configuration and plan, its resource log
		var tf struct {
			Config config.Config `json:"config"`
			Plan   *nemesis.Plan `json:"plan"`
		}
		noErr(t, store.ReadJSON(filepath.Join(run, store.TestFile), &tf))
		res.Config, res.Plan = tf.Config, tf.Plan
		for _, f := range []string{store.WritesFile} {
			noErr(t, os.Link(filepath.Join(run, f), filepath.Join(res.Dir, f)))
		}
	}
	if os.Getenv("LOCKSTORM_MEASURE_MODE") == "memory" {
		h, _, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res.History = history.Slice(h)
	}
	if k, _ := strconv.Atoi(os.Getenv("LOCKSTORM_MEASURE_ANOMALIES")); k > 0 {
		injectAnomaliesEvery(res, k, n)
	}
	start := time.Now()
	mustWrite(t, res)
	t.Logf("records %d: write %v", n, time.Since(start))
}

// injectAnomaliesEvery adds k made-up fatal anomalies to res's lock
// checker, each naming two records (n records in all), spread evenly.
func injectAnomaliesEvery(res *analysis.Result, k, n int) {
	part := &res.Verdict.Results[0]
	for j := range k {
		at := int64(n * (2*j + 1) / (2 * k))
		part.Anomalies = append(part.Anomalies, checker.Anomaly{Kind: "nonlinearizable", Ops: []int64{at, at + 1}, Fatal: true, Text: "made up by the test"})
	}
	part.Valid, res.Verdict.Valid = checker.Invalid, checker.Invalid
}
