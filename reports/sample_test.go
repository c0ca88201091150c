package reports

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/store"
)

// TestSampleReports writes sample report folders for people to look at,
// only when LOCKSTORM_SAMPLE_DIR names where:
//
//	LOCKSTORM_SAMPLE_DIR=/tmp/lockstorm-sample-report go test -run SampleReports ./reports
//
// It stores two real runs (catalogue row 4: single lock, client pauses
// longer than the TTL, no fencing; a short one and an 8 s one) and the
// hand-built pause history, and logs each run's verdict.
func TestSampleReports(t *testing.T) {
	dir := os.Getenv("LOCKSTORM_SAMPLE_DIR")
	if dir == "" {
		t.Skip("set LOCKSTORM_SAMPLE_DIR to write sample reports")
	}
	runs := []config.Config{
		{Name: "short-client-pause", Lock: "single", Workload: "counter", Clients: 3, TTL: 300 * time.Millisecond,
			TimeLimit: 3 * time.Second, Nemesis: []string{"client-pause"}, Seed: 1},
		{Name: "row4-client-pause", Lock: "single", Workload: "counter", TTL: 300 * time.Millisecond,
			TimeLimit: 8 * time.Second, Nemesis: []string{"client-pause"}, Seed: 3},
	}
	for _, cfg := range runs {
		cfg.Store = dir
		res := must[*analysis.Result](t)(harness.Run(context.Background(), cfg))
		mustWrite(t, res)
		t.Logf("%s: %v, %s", cfg.Name, res.Verdict.Valid, filepath.Join(res.Dir, store.IndexFile))
		for _, r := range res.Verdict.Results {
			t.Logf("  %s: %v (%d anomalies) %s", r.Name, r.Valid, len(r.Anomalies), r.Error)
		}
	}
	hd := filepath.Join(dir, "hand-built-pause")
	noErr(t, os.MkdirAll(hd, 0o755))
	res := pauseResult(hd)
	mustWrite(t, res)
	t.Logf("hand-built: %v, %s", res.Verdict.Valid, filepath.Join(hd, store.IndexFile))
	// An empty history (a run that died at once): unknown, empty plots.
	ed := filepath.Join(dir, "empty-history")
	noErr(t, os.MkdirAll(ed, 0o755))
	ecfg := config.Config{Name: "empty-history", Lock: "single", Workload: "counter", Clients: 2, Seed: 5}
	empty := &analysis.Result{Dir: ed, Config: ecfg, Verdict: analysis.Checkers(&analysis.Result{Config: ecfg}).Check(context.Background(), nil)}
	mustWrite(t, empty)
	// The benchmark's synthetic 100k-operation history, to see how the
	// plots look at that size (its verdict is not checked: unknown).
	bd := filepath.Join(dir, "synthetic-100k")
	noErr(t, os.MkdirAll(bd, 0o755))
	big := bigResult(bd, 100_000)
	big.Verdict.Valid, big.Verdict.Error = checker.Unknown, "synthetic history written for the report benchmark; not checked"
	mustWrite(t, big)
}

// TestRewriteReport re-analyses a stored run and rewrites its report, only
// when LOCKSTORM_REPORT_DIR names the run folder (handy after changing
// the report's look):
//
//	LOCKSTORM_REPORT_DIR=store/x/latest go test -run RewriteReport ./reports
func TestRewriteReport(t *testing.T) {
	dir := os.Getenv("LOCKSTORM_REPORT_DIR")
	if dir == "" {
		t.Skip("set LOCKSTORM_REPORT_DIR to rewrite a stored run's report")
	}
	res, _, err := analysis.Analyze(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, res)
	t.Logf("%v: %s", res.Verdict.Valid, filepath.Join(dir, store.IndexFile))
}
