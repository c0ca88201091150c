package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/reports"
)

// fakeRun is invalid for lock "bad", unknown for seed 3, else valid; it
// makes a run folder in the store.
func fakeRun(_ context.Context, cfg config.Config) (*analysis.Result, error) {
	dir := filepath.Join(cfg.Store, cfg.Name, fmt.Sprintf("seed%d", cfg.Seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	v := checker.Valid
	switch {
	case cfg.Seed == 3:
		v = checker.Unknown
	case cfg.Lock == "bad":
		v = checker.Invalid
	}
	return &analysis.Result{Dir: dir, Config: cfg, Verdict: checker.Result{Valid: v}}, nil
}

func cells() []Cell {
	return []Cell{
		{Name: "good", Config: config.Config{Name: "good", Lock: "single"}, Claims: []Claim{Expect(checker.Valid)}},
		{Name: "bad", Config: config.Config{Name: "bad", Lock: "bad"}, Claims: []Claim{Expect(checker.Invalid)}},
		{Name: "wrong", Config: config.Config{Name: "wrong", Lock: "bad"}, Claims: []Claim{Expect(checker.Valid)}},
	}
}

func flags(t *testing.T, seeds int, sh shard.Shard, only ...string) config.Campaign {
	f := config.Campaign{Seeds: seeds, Parallel: 2, Shard: sh, Only: only}
	f.Run.Store = t.TempDir()
	return f
}

// Each claim of each run is one JUnit case (an expected invalid verdict
// holds, a wrong expectation fails, an unknown verdict errs); one
// progress line per run; the folder holds campaign.json and summary.md.
func TestClaimsAreTestCases(t *testing.T) {
	var progress bytes.Buffer
	rep, err := Run(t.Context(), Spec{Kind: "test", Cells: cells(), Flags: flags(t, 2, shard.Shard{})}, Options{Runner: fakeRun, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(progress.String(), "\n"); n != 6 || !strings.Contains(progress.String(), "/6] wrong seed 2: invalid, a claim FAILS") {
		t.Errorf("%d progress lines:\n%s", n, progress.String())
	}
	doc := rep.JUnit()
	if doc.Tests != 6 || doc.Failures != 2 || doc.Errors != 0 {
		t.Errorf("JUnit: %d tests, %d failures, %d errors; want 6, 2 (wrong's seeds), 0", doc.Tests, doc.Failures, doc.Errors)
	}
	if rep.Status() != checker.Invalid {
		t.Errorf("status %v, want invalid", rep.Status())
	}
	for _, f := range []string{ReportFile, SummaryFile} {
		if _, err := os.Stat(filepath.Join(rep.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	if md := rep.Markdown(); !strings.Contains(md, "| bad | 1 | invalid | verdict invalid | holds |") {
		t.Errorf("summary:\n%s", md)
	}

	rep, err = Run(t.Context(), Spec{Kind: "test", Cells: cells(), Flags: flags(t, 3, shard.Shard{}, "good")}, Options{Runner: fakeRun})
	if err != nil {
		t.Fatal(err)
	}
	if doc := rep.JUnit(); doc.Tests != 3 || doc.Errors != 1 || doc.Failures != 0 || rep.Status() != checker.Unknown {
		t.Errorf("--only good, seeds 1..3: %d tests, %d errors, %d failures, status %v", doc.Tests, doc.Errors, doc.Failures, rep.Status())
	}
	if _, err := Run(t.Context(), Spec{Kind: "test", Cells: cells(), Flags: flags(t, 1, shard.Shard{}, "nope")}, Options{Runner: fakeRun}); err == nil {
		t.Error("--only nope ran")
	}
}

// Two shards run every run once, with the seeds the whole campaign gives
// them, and each leaves a manifest whose items Merged reads back.
func TestShardsSplitTheRuns(t *testing.T) {
	root := t.TempDir()
	seen := map[string]bool{}
	var ms []*shard.Manifest
	for k := range 2 {
		f := flags(t, 2, shard.Shard{K: k, N: 2})
		f.Run.Store = filepath.Join(root, fmt.Sprint(k))
		rep, err := Run(t.Context(), Spec{Kind: "test", Cells: cells(), Flags: f}, Options{Runner: fakeRun})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Planned != 3 || rep.Manifest == "" {
			t.Fatalf("shard %d: %d runs planned, manifest %q", k, rep.Planned, rep.Manifest)
		}
		for _, o := range rep.Outcomes {
			key := o.Label()
			if seen[key] {
				t.Errorf("%s ran twice", key)
			}
			seen[key] = true
		}
		got, err := shard.Read(f.Run.Store)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, got...)
	}
	if len(seen) != 6 {
		t.Errorf("the shards ran %d of 6 runs: %v", len(seen), seen)
	}
	w, err := shard.Combine(ms)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := Merged(w, make([]string, len(w.Items)), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 6 || rep.Status() != checker.Invalid || rep.JUnit().Failures != 2 {
		t.Errorf("merged: %d outcomes, status %v, %d failures", len(rep.Outcomes), rep.Status(), rep.JUnit().Failures)
	}
	b, _ := os.ReadFile(filepath.Join(rep.Dir, ReportFile))
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || len(back.Outcomes) != 6 {
		t.Errorf("campaign.json: %v, %d outcomes", err, len(back.Outcomes))
	}
	if x, _ := reports.MarshalJUnit(rep.JUnit()); strings.Contains(string(x), "e+") {
		t.Errorf("an exponent in the JUnit times:\n%s", x)
	}
}

// A merged run's replay line reads the fault plan copied with its folder;
// a line without --fault-plan, or a folder without the file, is kept.
func TestPlanInMergedStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "merged", "run")
	line := "lockstorm run --lock single --fault-plan '/shard 0/run/fault-plan.json' --seed 2"
	if got := planIn(line, dir); got != line {
		t.Errorf("without the file: %q", got)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	storetest.Write(t, dir, config.FaultPlanFile, "{}")
	want := "lockstorm run --lock single --fault-plan " + filepath.Join(dir, config.FaultPlanFile) + " --seed 2"
	if got := planIn(line, dir); got != want {
		t.Errorf("planIn = %q, want %q", got, want)
	}
	if plain := "lockstorm run --lock single --seed 2"; planIn(plain, dir) != plain {
		t.Errorf("a line without a plan changed: %q", planIn(plain, dir))
	}
}
