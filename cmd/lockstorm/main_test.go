package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/lockstormbin"
	"github.com/lockstorm/lockstorm/internal/store"
)

// binary is the lockstorm binary, built once per test process (or the
// one make test built: lockstormbin.Env).
func binary(t *testing.T) string {
	t.Helper()
	bin, err := lockstormbin.OnPath()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func exec1(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Env = append(os.Environ(), "CI=1")
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), o.String(), e.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

// Bad input: one line naming the flag or field, exit 2, nothing started.
func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	bin := binary(t)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("lok: single\n"), 0o644)
	store := t.TempDir()
	wantUsageErrors(t, bin, store, []usageCase{
		{[]string{"run", "--lock", "nope", "--store", store}, "--lock must be one of"},
		{[]string{"run", "--ttl", "soon", "--store", store}, "--ttl"},
		{[]string{"run", "--nemesis", "meteor", "--store", store}, "--nemesis must be"},
		{[]string{"run", "--persistence", "rdb", "--store", store}, "persistence must be one of"},
		{[]string{"run", "--provider", "cloud", "--store", store}, "--provider must be one of"},
		{[]string{"run", "--provider", "external", "--store", store}, "--redis-addrs is required"},
		{[]string{"run", "--config", plan, "--store", store}, "field lok not found"},
		{[]string{"run", "--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"analyze", t.TempDir()}, "not a run folder"},
		{[]string{"catalog", "--only", "99"}, "no catalogue row 99"},
		{[]string{"serve", "--store", "/nonexistent"}, "is not a folder of runs"},
		{[]string{"bogus"}, "unknown command"},
		{[]string{"help", "nope"}, "unknown help topic"},
		{[]string{"compare", "--ttl", "0", "--store", store}, "--ttl must be a duration of at least 10ms, got 0"},
		{[]string{"run", "--ttl", "0", "--store", store}, "--ttl must be a duration of at least 10ms, got 0"},
		{[]string{"compare", "--pause", "0", "--store", store}, "--pause 0 means no pause, and a comparison needs"},
		{[]string{"compare", "--pause", "-1s", "--store", store}, "--pause must not be negative"},
		{[]string{"compare", "--seeds", "0", "--store", store}, "--seeds must be at least 1"},
		{[]string{"compare", "--only", "nope", "--store", store}, "--only: no cell"},
		{[]string{"run", "extra"}, "unknown command"},
		// sweep and run --runs refuse bad values as every campaign does.
		{[]string{"sweep", "--ttl", "0", "--store", store}, "--ttl must be a duration of at least 10ms"},
		{[]string{"sweep", "--ttl", "200ms,5ms", "--store", store}, "--ttl must be a duration of at least 10ms, got 5ms"},
		{[]string{"sweep", "--pause", "-1s", "--store", store}, "--pause must not be negative"},
		{[]string{"sweep", "--seeds", "0", "--store", store}, "--seeds must be at least 1"},
		{[]string{"sweep", "--parallel", "0", "--store", store}, "--parallel must be at least 1"},
		{[]string{"sweep", "--time-limit", "0s", "--store", store}, "--time-limit must be a positive duration"},
		{[]string{"sweep", "--clients", "0", "--store", store}, "--clients must be 1..64"},
		{[]string{"sweep", "--shard", "2/2", "--store", store}, "K counts from 0"},
		{[]string{"sweep", "--only", "nope", "--store", store}, "--only: no cell"},
		{[]string{"sweep", "--fencing", "--fencing-axis", "on", "--store", store}, "--fencing and --fencing-axis both"},
		{[]string{"run", "--runs", "0", "--store", store}, "--runs must be at least 1"},
		{[]string{"run", "--runs", "2", "--ttl", "0", "--store", store}, "--ttl must be a duration of at least 10ms, got 0"},
		{[]string{"run", "--runs", "2", "--time-limit", "0s", "--store", store}, "--time-limit must be a positive duration"},
		{[]string{"run", "--runs", "2", "--seed", "1", "--shard", "2/2", "--store", store}, "K counts from 0"},
	})
}

// usageCase is a command line refused before anything starts, and what
// its one line of stderr must hold.
type usageCase struct {
	args []string
	want string
}

// wantUsageErrors runs each case: exit 2, one line on stderr with the
// case's text, and nothing left in store.
func wantUsageErrors(t *testing.T, bin, store string, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		code, _, stderr := exec1(t, bin, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(store); len(entries) > 0 {
		t.Errorf("refused input left %d entries in the store", len(entries))
	}
}

// analyze re-checks a stored history, even one cut short by a crash, and
// its exit status follows the verdict.
func TestAnalyzeExitStatusFollowsVerdict(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, store.TestFile), []byte(`{"config":{"lock":"single","workload":"counter","ttl_ns":1000000000,"seed":5}}`), 0o644)
	// Two overlapping holders inside a live lease: invalid.
	h := history.History{
		{Index: 0, Time: 0, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: 1e9},
		{Index: 1, Time: 1e6, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "a", TTL: 1e9},
		{Index: 2, Time: 2e6, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k", TTL: 1e9},
		{Index: 3, Time: 3e6, Type: history.OK, Process: 1, F: history.FAcquire, Key: "k", Token: "b", TTL: 1e9},
	}
	if err := history.WriteFile(filepath.Join(dir, store.HistoryFile), h); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, store.HistoryFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":4,"time":4000000,"ty`) // a crash cut the last line
	f.Close()
	code, stdout, stderr := exec1(t, bin, "analyze", dir)
	if code != 1 || !strings.Contains(stdout, "INVALID") || !strings.Contains(stderr, "truncated") {
		t.Fatalf("analyze: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, f := range []string{"results.json", "index.html", "junit.xml", "holders.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("analyze did not write %s", f)
		}
	}
}

// Values that used to run silently with defaults (or run for nothing) are
// refused before anything starts: exit 2, one line naming the flag.
func TestRefusedNotDefaulted(t *testing.T) {
	bin := binary(t)
	store := t.TempDir()
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("lock: single\nttl: 0s\n"), 0o644)
	wantUsageErrors(t, bin, store, []usageCase{
		{[]string{"run", "--ttl", "0", "--store", store}, "--ttl must be"},
		{[]string{"run", "--nodes", "0", "--store", store}, "--nodes must be 1..15"},
		{[]string{"run", "--clients", "0", "--store", store}, "--clients must be 1..64"},
		{[]string{"run", "--time-limit", "0s", "--store", store}, "--time-limit must be"},
		{[]string{"run", "--config", plan, "--store", store}, "--ttl must be"},
		{[]string{"run", "--fencing", "--store", store}, "--fencing needs a lock that issues fencing tokens"},
		{[]string{"run", "--lock", "redlock", "--fencing", "--store", store}, "redlock issues none"},
		{[]string{"run", "--lock", "redlock", "--nodes", "2", "--store", store}, "--nodes must be at least 3 for redlock"},
		{[]string{"run", "--nemesis", "none,partition", "--store", store}, "--nemesis none means no faults"},
		{[]string{"run", "--nemesis", "partition,crash", "--time-limit", "3s", "--store", store}, "--time-limit 3s is too short for one fault of each of partition,crash"},
		{[]string{"compare", "--lock", "single", "--store", store}, "--lock must be a lock that issues fencing tokens"},
		{[]string{"run", "--runs", "2", "--lock", "nope", "--store", store}, "--lock must be one of"}, // no base seed line first
	})
}

// --nemesis none means no faults, as in Jepsen.
func TestNemesisNoneRunsWithoutFaults(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	code, stdout, stderr := exec1(t, bin, "run", "--nemesis", "none", "--clients", "2", "--ttl", "200ms", "--time-limit", "1s", "--seed", "1", "--store", dir)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "*", "*", store.HistoryFile))
	if len(runs) == 0 {
		t.Fatal("no history in the store")
	}
	for _, r := range runs { // the run and its "latest" link
		h, _, err := history.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range h {
			if op.IsNemesis() && op.F == history.FStart {
				t.Fatalf("a fault started under --nemesis none: %+v", op)
			}
		}
	}
}

// A disk that fills up mid-run (a 48 KiB tmpfs as the store) stops the run
// promptly; it prints an unknown verdict and why, exits 3, and a later
// analyze of the stored run does not call it valid either. Needs root to
// mount the tmpfs; skipped otherwise (harness's TestHistoryWriteFailureStopsRun
// covers the same without root).
func TestFullDiskRunIsUnknown(t *testing.T) {
	bin := binary(t)
	store := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", store).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", store).Run() })
	start := time.Now()
	code, stdout, stderr := exec1(t, bin, "run", "--lock", "single", "--store", store, "--time-limit", "30s", "--seed", "3")
	if code != 3 && code != 1 || !strings.Contains(stdout, "history write failed") {
		t.Fatalf("run: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the run went on for %v on a full disk", took)
	}
	copyDir := t.TempDir() // analyze needs room for its report
	runDir := filepath.Join(store, "single-counter", "latest")
	if out, err := exec.Command("cp", "-r", runDir+"/.", copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	code, stdout, stderr = exec1(t, bin, "analyze", copyDir)
	if code != 3 && code != 1 || !strings.Contains(stdout, "incomplete run") {
		t.Fatalf("analyze of the cut-short run: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// --version prints the version and exits 0.
func TestVersion(t *testing.T) {
	code, out, errOut := exec1(t, binary(t), "--version")
	if code != 0 || !strings.HasPrefix(out, "lockstorm version ") || strings.TrimSpace(strings.TrimPrefix(out, "lockstorm version ")) == "" {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Every subcommand's help describes it and lists its exit statuses.
func TestEveryHelpListsExitStatus(t *testing.T) {
	bin := binary(t)
	for _, c := range []string{"run", "analyze", "catalog", "serve", "sweep", "compare", "power", "client"} {
		code, out, _ := exec1(t, bin, c, "--help")
		if code != 0 || !strings.Contains(out, "Exit status:") || !strings.HasPrefix(strings.TrimSpace(out), c+" ") {
			t.Errorf("%s --help: exit %d, no description or no exit status:\n%s", c, code, out)
		}
	}
}

// Sweep's durations are durations: the help says so and a bad one is
// refused at once with exit 2.
func TestSweepDurationFlags(t *testing.T) {
	bin := binary(t)
	_, help, _ := exec1(t, bin, "sweep", "--help")
	for _, f := range []string{"--time-limit duration", "--hold-min duration", "--hold-max duration"} {
		if !strings.Contains(help, f) {
			t.Errorf("sweep --help lacks %q", f)
		}
	}
	if code, _, errOut := exec1(t, bin, "sweep", "--hold-max", "long"); code != 2 || !strings.Contains(errOut, "--hold-max") {
		t.Errorf("sweep --hold-max long: exit %d, %q", code, errOut)
	}
}

// The commands that print a run's summary define its coverage columns in
// their help, one line per column (coverage.Columns, the page's legend).
func TestHelpDefinesCoverageColumns(t *testing.T) {
	bin := binary(t)
	for _, c := range []string{"run", "analyze"} {
		_, out, _ := exec1(t, bin, c, "--help")
		for _, col := range coverage.Columns {
			if line := "  " + col.Name + ": " + col.Meaning + "\n"; !strings.Contains(out, line) {
				t.Errorf("%s --help lacks %q", c, line)
			}
		}
		if !strings.Contains(out, "  exercised: applied faults that hit a holder or a waiter") {
			t.Errorf("%s --help does not define exercised:\n%s", c, out)
		}
	}
}
