package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/store"
)

// runFolders lists a test's run folders (not "latest").
func runFolders(t *testing.T, root, test string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, test))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Type()&os.ModeSymlink == 0 {
			out = append(out, filepath.Join(root, test, e.Name()))
		}
	}
	return out
}

type storedTest struct {
	Config    config.Config `json:"config"`
	Completed bool          `json:"completed"`
}

func readTest(t *testing.T, dir string) storedTest {
	t.Helper()
	var tf storedTest
	b, err := os.ReadFile(filepath.Join(dir, store.TestFile))
	if err != nil || json.Unmarshal(b, &tf) != nil {
		t.Fatalf("%s: %v", store.TestFile, err)
	}
	return tf
}

// --runs 3: three runs, three folders, three different recorded seeds
// (run 1 the --seed itself, the others derived), each with a report; the
// summary gives k/N per verdict; exit 0 when all are valid.
func TestRunsCampaign(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	junit := filepath.Join(t.TempDir(), "ci", "junit.xml")
	code, stdout, stderr := exec1(t, bin, "run", "--clients", "2", "--ttl", "200ms", "--time-limit", "2s",
		"--seed", "9", "--runs", "3", "--store", dir, "--junit", junit)
	if code != 0 || !strings.Contains(stdout, "run single-counter: 3 of 3 runs; claims hold 3, fail 0, cannot say 0") || strings.Count(stdout, "== run ") != 3 ||
		strings.Count(stderr, "] single-counter seed ") != 3 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	dirs := runFolders(t, dir, "single-counter")
	if len(dirs) != 3 {
		t.Fatalf("%d run folders, want 3", len(dirs))
	}
	if doc := readJUnit(t, junit); len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 3 || doc.Failures+doc.Errors != 0 {
		t.Errorf("--junit: %d suites, %d failures, %d errors; want the campaign's suite of 3 passing cases", len(doc.Suites), doc.Failures, doc.Errors)
	} else if c := doc.Suites[0].Cases[2]; c.Name != fmt.Sprintf("single-counter seed %d: verdict valid", harness.RunSeed(9, 3)) {
		t.Errorf("--junit: run 3's case %q; want it named by its seed", c.Name)
	}
	seeds := map[int64]bool{}
	for _, d := range dirs {
		tf := readTest(t, d)
		seeds[tf.Config.Seed] = true
		if !tf.Completed {
			t.Errorf("%s: not completed", d)
		}
		if _, err := os.Stat(filepath.Join(d, "index.html")); err != nil {
			t.Errorf("%s: no report", d)
		}
	}
	for i := 1; i <= 3; i++ {
		if !seeds[harness.RunSeed(9, i)] {
			t.Errorf("no run with seed %d (run %d); seeds %v", harness.RunSeed(9, i), i, seeds)
		}
	}
	if code, _, stderr := exec1(t, bin, "run", "--runs", "0", "--store", dir); code != 2 || !strings.Contains(stderr, "--runs") {
		t.Errorf("--runs 0: exit %d, %s", code, stderr)
	}
}

// SIGINT stops a run: exit 3 (unknown), results.json interrupted, no
// completion mark; in a campaign, no further run starts and the aggregate
// is unknown.
func TestSigintIsUnknown(t *testing.T) {
	bin := binary(t)
	for _, runs := range []string{"1", "3"} {
		dir := t.TempDir()
		cmd := exec.Command(bin, "run", "--clients", "2", "--ttl", "200ms", "--time-limit", "20s",
			"--seed", "4", "--runs", runs, "--store", dir)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		cmd.Env = append(os.Environ(), "CI=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("--runs %s: %v, want exit 3\nstdout %s\nstderr %s", runs, err, o.String(), e.String())
		}
		if runs == "1" && !strings.Contains(o.String(), "interrupted by SIGINT") || runs == "3" && !strings.Contains(e.String(), "interrupted after 0 of 3 runs") {
			t.Errorf("--runs %s: the summary does not say it was interrupted:\n%s", runs, o.String())
		}
		dirs := runFolders(t, dir, "single-counter")
		if len(dirs) != 1 {
			t.Fatalf("--runs %s: %d run folders after SIGINT, want 1", runs, len(dirs))
		}
		var rf struct {
			Interrupted bool `json:"interrupted"`
		}
		b, _ := os.ReadFile(filepath.Join(dirs[0], store.ResultsFile))
		if json.Unmarshal(b, &rf) != nil || !rf.Interrupted {
			t.Errorf("--runs %s: results.json %s, want interrupted", runs, b)
		}
		if page, _ := os.ReadFile(filepath.Join(dirs[0], "index.html")); !strings.Contains(string(page), "this run is incomplete; its verdict is at best unknown") {
			t.Errorf("--runs %s: the report has no interrupted banner", runs)
		}
		if junit, _ := os.ReadFile(filepath.Join(dirs[0], "junit.xml")); !strings.Contains(string(junit), "<error") {
			t.Errorf("--runs %s: junit.xml has no error:\n%s", runs, junit)
		}
		if readTest(t, dirs[0]).Completed {
			t.Errorf("--runs %s: an interrupted run has the completion mark", runs)
		}
		if runs == "3" && !strings.Contains(o.String(), "run single-counter: 0 of 3 runs; claims hold 0, fail 0, cannot say 0; interrupted") {
			t.Errorf("campaign summary:\n%s", o.String())
		}
	}
}
