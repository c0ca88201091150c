package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/history"
)

// shortRun is a 1 s run of single on one node, no faults, in store.
func shortRun(t *testing.T, store string) *Result {
	t.Helper()
	res, err := Run(context.Background(), Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
		TimeLimit: time.Second, Seed: 11, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A full disk (the history on /dev/full) stops the run promptly, heals,
// and still checks what is in memory; the verdict of the cut-short run is
// not valid, and the result and test.json say why.
func TestHistoryWriteFailureStopsRun(t *testing.T) {
	createHistory = func(string) (*history.Recorder, error) { return history.CreateFile("/dev/full") }
	t.Cleanup(func() { createHistory = history.CreateFile })
	start := time.Now()
	res, err := Run(context.Background(), Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
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
	if len(res.History) == 0 {
		t.Error("no history in memory")
	}
	if left := clustertest.Leftovers(); left != "" {
		t.Fatalf("left behind:\n%s", left)
	}
	var tf testFile
	b, err := os.ReadFile(filepath.Join(res.Dir, TestFile))
	if err != nil || json.Unmarshal(b, &tf) != nil || tf.Completed || tf.Incomplete == "" {
		t.Errorf("test.json does not say the run is incomplete: %s (%v)", b, err)
	}
}

// analyze never calls valid a stored run that did not complete: no
// completion mark (killed), or a history shorter than the run wrote.
func TestAnalyzeIncompleteRunIsNotValid(t *testing.T) {
	res := shortRun(t, t.TempDir())
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("baseline run not valid: %+v", res.Verdict)
	}
	got, _, err := Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Valid {
		t.Fatalf("analyze of the complete run: %v %v", got.Verdict.Valid, err)
	}
	testJSON := filepath.Join(res.Dir, TestFile)
	var tf testFile
	b, _ := os.ReadFile(testJSON)
	if err := json.Unmarshal(b, &tf); err != nil {
		t.Fatal(err)
	}

	// Truncated: drop the last records, as a lost tail would.
	hist := filepath.Join(res.Dir, HistoryFile)
	whole, _ := os.ReadFile(hist)
	lines := strings.SplitAfter(string(whole), "\n")
	if err := os.WriteFile(hist, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err = Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid == checker.Valid || !strings.Contains(got.Verdict.Error, "records") {
		t.Errorf("analyze of a truncated history: %v %q %v, want unknown saying records are missing", got.Verdict.Valid, got.Verdict.Error, err)
	}

	// Killed: no completion mark.
	tf.Completed, tf.Records = false, 0
	if err := writeJSON(testJSON, tf); err != nil {
		t.Fatal(err)
	}
	got, _, err = Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Unknown || !strings.Contains(got.Verdict.Error, "did not complete") {
		t.Errorf("analyze of a run without completion mark: %v %q %v, want unknown", got.Verdict.Valid, got.Verdict.Error, err)
	}
}

// A run whose setup fails (no redis-server) leaves a folder that says so,
// "latest" keeps pointing at the previous good run, and the store listing
// shows it as setup failed.
func TestSetupFailureKeepsLatest(t *testing.T) {
	store := t.TempDir()
	good := shortRun(t, store)
	t.Setenv("PATH", t.TempDir()) // no redis-server
	_, err := Run(context.Background(), Config{Lock: "single", Clients: 2, TimeLimit: time.Second, Seed: 11, Store: store})
	if err == nil {
		t.Fatal("a run without redis-server succeeded")
	}
	latest, err := os.Readlink(filepath.Join(filepath.Dir(good.Dir), "latest"))
	if err != nil || latest != filepath.Base(good.Dir) {
		t.Errorf("latest -> %q (%v), want the good run %s", latest, err, filepath.Base(good.Dir))
	}
	runs, err := ListRuns(store)
	if err != nil || len(runs) != 2 {
		t.Fatalf("ListRuns: %d runs, %v", len(runs), err)
	}
	failed := runs[0] // newest first
	if !strings.Contains(failed.SetupError, "redis-server") || failed.Checked {
		t.Errorf("failed run listed as %+v, want a setup error naming redis-server", failed)
	}
	b, err := os.ReadFile(filepath.Join(store, failed.Dir, SetupFailedFile))
	if err != nil || !strings.Contains(string(b), "redis-server") {
		t.Errorf("%s: %q %v", SetupFailedFile, b, err)
	}
	if runs[1].SetupError != "" || !runs[1].Checked {
		t.Errorf("good run listed as %+v", runs[1])
	}
}
