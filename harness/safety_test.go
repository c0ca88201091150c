package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// shortRun is a 1 s run of single on one node, no faults, in store root.
func shortRun(t *testing.T, root string) *analysis.Result {
	t.Helper()
	return storetest.Run(t, Run, config.Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
		TimeLimit: time.Second, Seed: 11, Store: root})
}

// One short run without faults, and what is said of it: it is valid,
// with no clock event (the clock watch raises no false alarm on this
// machine), and it states its overhead; a later run whose setup fails
// keeps "latest" on it; analyze calls it valid, but not once its history
// is cut or its completion mark removed.
func TestShortRun(t *testing.T) {
	root := t.TempDir()
	res := shortRun(t, root)
	if len(res.ClockEvents) != 0 || res.Verdict.Valid != checker.Valid {
		t.Fatalf("a run without faults: clock events %v, verdict %s", res.ClockEvents, res.Verdict.Valid)
	}
	t.Run("overhead", func(t *testing.T) { checkOverhead(t, res) })
	t.Run("setup failure keeps latest", func(t *testing.T) { checkSetupFailureKeepsLatest(t, root, res) })
	t.Run("analyze incomplete", func(t *testing.T) { checkAnalyzeIncomplete(t, res) })
}

// checkOverhead: a run states its own overhead, its records per second
// and the latency its proxies add per command, in the result and in
// test.json.
func checkOverhead(t *testing.T, res *analysis.Result) {
	o := res.Overhead
	if n := len(recordsOf(t, res)); o == nil || o.Records != n || o.RecordsPerSec <= 0 {
		t.Fatalf("overhead %+v for %d records", o, n)
	}
	if o.DirectP50 <= 0 || o.ProxiedP50 <= 0 || o.ProxyAddedP50 != max(o.ProxiedP50-o.DirectP50, 0) {
		t.Errorf("proxy latency not measured: %+v", o)
	}
	if o.DirectP99 < o.DirectP50 || o.ProxiedP99 < o.ProxiedP50 || o.ProxyAddedP99 != max(o.ProxiedP99-o.DirectP99, 0) {
		t.Errorf("proxy latency tail not measured: %+v", o)
	}
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); tf.Overhead == nil || tf.Overhead.Records != o.Records {
		t.Errorf("test.json has no overhead: %s", b)
	}
}

// A full disk (the history on /dev/full) stops the run promptly, heals,
// and still checks what is in memory; the verdict of the cut-short run is
// not valid, and the result and test.json say why.
func TestHistoryWriteFailureStopsRun(t *testing.T) {
	createHistory = func(string) (*history.Recorder, error) { return history.CreateFile("/dev/full") }
	t.Cleanup(func() { createHistory = history.CreateFile })
	start := time.Now()
	res, err := Run(context.Background(), config.Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
		Nemesis: []string{"partition"}, FaultInterval: 200 * time.Millisecond,
		TimeLimit: 30 * time.Second, Seed: 5, Store: t.TempDir()})
	if err != nil {
		t.Fatalf("run with a full disk: %v (want a result, not an error)", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run went on for %v after its history could not be written", took)
	}
	if !strings.Contains(res.Incomplete, "no space left") {
		t.Errorf("Incomplete = %q, want the write error", res.Incomplete)
	}
	if res.Verdict.Valid == checker.Valid {
		t.Errorf("a cut-short run was judged valid")
	}
	if len(recordsOf(t, res)) == 0 {
		t.Error("no history in memory")
	}
	if left := clustertest.Leftovers(); left != "" {
		t.Fatalf("left behind:\n%s", left)
	}
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); tf.Completed || tf.Incomplete == "" {
		t.Errorf("test.json does not say the run is incomplete: %s", b)
	}
}

// checkAnalyzeIncomplete: analyze never calls valid a stored run that did
// not complete: no completion mark (killed), or a history shorter than
// the run wrote.
func checkAnalyzeIncomplete(t *testing.T, res *analysis.Result) {
	got, _, err := analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Valid {
		t.Fatalf("analyze of the complete run: %v %v", got.Verdict.Valid, err)
	}
	var tf analysis.TestFile
	storetest.ReadJSON(t, res.Dir, store.TestFile, &tf)

	// Truncated: drop the last records, as a lost tail would.
	lines := strings.SplitAfter(storetest.Read(t, res.Dir, store.HistoryFile), "\n")
	storetest.Write(t, res.Dir, store.HistoryFile, strings.Join(lines[:len(lines)/2], ""))
	got, _, err = analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid == checker.Valid || !strings.Contains(got.Verdict.Error, "records") {
		t.Errorf("analyze of a truncated history: %v %q %v, want unknown saying records are missing", got.Verdict.Valid, got.Verdict.Error, err)
	}

	// Killed: no completion mark.
	tf.Completed, tf.Records = false, 0
	storetest.WriteJSON(t, res.Dir, store.TestFile, tf)
	got, _, err = analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Unknown || !strings.Contains(got.Verdict.Error, "did not complete") {
		t.Errorf("analyze of a run without completion mark: %v %q %v, want unknown", got.Verdict.Valid, got.Verdict.Error, err)
	}
}

// checkSetupFailureKeepsLatest: a run whose setup fails (no
// redis-server) leaves a folder that says so, "latest" keeps pointing at
// the previous good run, and the store listing shows it as setup failed.
func checkSetupFailureKeepsLatest(t *testing.T, root string, good *analysis.Result) {
	t.Setenv("PATH", t.TempDir()) // no redis-server
	_, err := Run(context.Background(), config.Config{Lock: "single", Clients: 2, TimeLimit: time.Second, Seed: 11, Store: root})
	if err == nil {
		t.Fatal("a run without redis-server succeeded")
	}
	latest, err := os.Readlink(filepath.Join(filepath.Dir(good.Dir), store.LatestLink))
	if err != nil || latest != filepath.Base(good.Dir) {
		t.Errorf("latest -> %q (%v), want the good run %s", latest, err, filepath.Base(good.Dir))
	}
	runs, err := analysis.ListRuns(root)
	if err != nil || len(runs) != 2 {
		t.Fatalf("ListRuns: %d runs, %v", len(runs), err)
	}
	failed := runs[0] // newest first
	if !strings.Contains(failed.SetupError, "redis-server") || failed.Checked {
		t.Errorf("failed run listed as %+v, want a setup error naming redis-server", failed)
	}
	if b := storetest.Read(t, filepath.Join(root, failed.Dir), store.SetupFailedFile); !strings.Contains(b, "redis-server") {
		t.Errorf("%s: %q", store.SetupFailedFile, b)
	}
	if runs[1].SetupError != "" || !runs[1].Checked {
		t.Errorf("good run listed as %+v", runs[1])
	}
}
