package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/repro"
)

// runDir runs lockstorm run with args into a fresh store and returns the
// run's folder.
func runDir(t *testing.T, bin string, args ...string) string {
	t.Helper()
	store := t.TempDir()
	exec1(t, bin, append(append([]string{"run"}, args...), "--store", store)...)
	ms, _ := filepath.Glob(filepath.Join(store, "*", "2*"))
	if len(ms) != 1 {
		t.Fatalf("run %v left %v in its store", args, ms)
	}
	return ms[0]
}

// shrink finds a smaller reproduction of a broken lock's run: fewer
// faults or clients than the run had, still failing in its measured rate.
func TestShrinkBrokenLock(t *testing.T) {
	bin := binary(t)
	dir := runDir(t, bin, "--lock", "unsafe-del", "--nemesis", "client-pause", "--ttl", "500ms", "--time-limit", "8s", "--fault-interval", "1500ms", "--seed", "3")
	code, stdout, stderr := exec1(t, bin, "shrink", dir, "--tries", "2", "--keep", "1", "--budget", "45s")
	if code != 0 {
		t.Fatalf("shrink: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var r repro.Result
	b, err := os.ReadFile(filepath.Join(dir, repro.Folder, repro.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !(r.Best.Faults() < r.Before.Faults() || r.Best.Clients < r.Before.Clients) {
		t.Errorf("best %s is not smaller than the run's %s", r.Best, r.Before)
	}
	if r.Best.Shows < 1 || r.Best.Tries != 2 || r.Best.Failing == "" {
		t.Errorf("best's measured rate %s (failing run %q), want at least 1/2", r.Best.Rate(), r.Best.Failing)
	}
	report := readFile(t, filepath.Join(dir, repro.Folder, repro.ReportFile))
	for _, want := range []string{"## Steps to reproduce", "--fault-plan " + filepath.Join(dir, repro.Folder, "fault-plan.json"), "## The operations, with times", r.Target.Kind} {
		if !strings.Contains(report, want) {
			t.Errorf("REPORT.md lacks %q:\n%s", want, report)
		}
	}
}

// shrink refuses what it cannot shrink (exit 2), and says so when the
// run's anomaly no longer reproduces (exit 1).
func TestShrinkBadInput(t *testing.T) {
	bin := binary(t)
	valid := runDir(t, bin, "--lock", "single", "--nemesis", "partition", "--ttl", "500ms", "--time-limit", "5s", "--seed", "1")
	wantUsageErrors(t, bin, t.TempDir(), []usageCase{
		{[]string{"shrink", filepath.Join(t.TempDir(), "nope")}, "is not a run folder"},
		{[]string{"shrink", t.TempDir()}, "is not a run folder"},
		{[]string{"shrink", valid}, "not invalid"},
		{[]string{"shrink", valid, "--keep", "9"}, "--keep must be between 1 and --tries"},
	})
	// The same correct run, its verdict doctored to claim a lock
	// violation: its configuration cannot show it again.
	var res map[string]any
	path := filepath.Join(valid, "results.json")
	if err := json.Unmarshal([]byte(readFile(t, path)), &res); err != nil {
		t.Fatal(err)
	}
	res["valid"] = false
	for _, r := range res["results"].([]any) {
		if m := r.(map[string]any); m["name"] == "lock" {
			m["valid"] = false
			m["anomalies"] = []any{map[string]any{"kind": "nonlinearizable", "ops": []int{1, 2}, "text": "doctored", "fatal": true}}
		}
	}
	b, _ := json.Marshal(res)
	os.WriteFile(path, b, 0o644)
	code, stdout, stderr := exec1(t, bin, "shrink", valid, "--tries", "2", "--keep", "1", "--budget", "40s")
	if code != 1 || !strings.Contains(stderr, "no longer reproduces") {
		t.Errorf("shrink of an anomaly that does not reproduce: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}
