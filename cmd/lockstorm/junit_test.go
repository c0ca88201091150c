package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/reports"
)

// readJUnit parses a --junit file and checks what every lockstorm JUnit
// document promises: each suite has a timestamp and counts that match its
// cases, each case a duration, and the root's totals are the suites'.
func readJUnit(t *testing.T, path string) reports.JUnitSuites {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("--junit: %v", err)
	}
	var doc reports.JUnitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("--junit does not parse: %v\n%s", err, b)
	}
	tests := 0
	for _, s := range doc.Suites {
		if _, err := time.Parse("2006-01-02T15:04:05", s.Timestamp); err != nil {
			t.Errorf("suite %s: timestamp %q", s.Name, s.Timestamp)
		}
		if c := s.Counted(); c.Tests != s.Tests || c.Failures != s.Failures || c.Errors != s.Errors || c.Skipped != s.Skipped {
			t.Errorf("suite %s: counts %d/%d/%d/%d, cases say %d/%d/%d/%d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, c.Tests, c.Failures, c.Errors, c.Skipped)
		}
		for _, c := range s.Cases {
			if c.Time <= 0 {
				t.Errorf("suite %s case %s: no duration", s.Name, c.Name)
			}
		}
		tests += s.Tests
	}
	if tests != doc.Tests {
		t.Errorf("root says %d tests, suites %d", doc.Tests, tests)
	}
	return doc
}

// run --junit PATH writes the run's JUnit to PATH as well as junit.xml in
// the run folder; the single lock's run has no fencing tokens, so its
// fencing case is skipped, not passed.
func TestRunJUnit(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	junit := filepath.Join(t.TempDir(), "out.xml")
	code, stdout, stderr := exec1(t, bin, "run", "--clients", "2", "--ttl", "200ms", "--time-limit", "1s",
		"--seed", "3", "--store", dir, "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	doc := readJUnit(t, junit)
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "single-counter" {
		t.Fatalf("want one suite single-counter: %+v", doc.Suites)
	}
	s := doc.Suites[0]
	skipped := ""
	for _, c := range s.Cases {
		if c.Skipped != nil {
			skipped += c.Name + ": " + c.Skipped.Message + ";"
		}
	}
	if s.Skipped != 1 || !strings.HasPrefix(skipped, "fencing: ") {
		t.Errorf("want the fencing case skipped (and only it): skipped %d, %q", s.Skipped, skipped)
	}
	if code, _, stderr := exec1(t, bin, "run", "--time-limit", "1s", "--store", dir, "--junit", "/proc/nope/x.xml"); code != 2 || !strings.Contains(stderr, "--junit") {
		t.Errorf("unwritable --junit: exit %d, %q; want 2 naming --junit", code, stderr)
	}
}

// catalog --junit PATH: one document, a case per claim of each row; row 1
// expects an invalid verdict (and resource invalid) and observes them, so
// its cases pass and the command exits 0.
func TestCatalogJUnitFile(t *testing.T) {
	bin := binary(t)
	junit := filepath.Join(t.TempDir(), "catalog.xml")
	code, stdout, stderr := exec1(t, bin, "catalog", "--only", "1", "--store", t.TempDir(), "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	doc := readJUnit(t, junit)
	if len(doc.Suites) != 1 || doc.Tests != 2 || doc.Failures+doc.Errors != 0 {
		t.Fatalf("want two passing cases: %+v", doc)
	}
	if c := doc.Suites[0].Cases[0]; c.Name != "catalog-01-unsafe-del seed 1: expected verdict invalid" || !strings.Contains(c.SystemOut, "verdict invalid") {
		t.Errorf("case %q, out %q", c.Name, c.SystemOut)
	}
}

// compare --junit PATH: the campaign's one suite, a case per claim of
// each run; with the comparison showing what fencing changes the document
// has no failure, though the unfenced run is invalid (its claim).
func TestCompareJUnitFile(t *testing.T) {
	bin := binary(t)
	junit, root := filepath.Join(t.TempDir(), "compare.xml"), t.TempDir()
	// 5 s: two pauses (at 1 s and 2.4 s), not 4 s and one. A single pause
	// can land after the holder's write on a loaded machine (its aim waits
	// for a fresh holder, and the write comes 15-75 ms after the acquire):
	// the unfenced run is then valid and the comparison fails.
	code, stdout, stderr := exec1(t, bin, "compare", "--ttl", "300ms", "--time-limit", "5s", "--store", root, "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	doc := readJUnit(t, junit)
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "compare.fenced" {
		t.Fatalf("suites %v", names)
	}
	if doc.Tests != 2 || doc.Failures != 0 || doc.Errors != 0 {
		t.Errorf("compare's claims hold, yet the JUnit says %d tests, %d failures, %d errors", doc.Tests, doc.Failures, doc.Errors)
	}
	if !strings.Contains(stdout, "| unfenced | 1 | invalid |") {
		t.Errorf("the summary table lacks the unfenced run:\n%s", stdout)
	}
	// serve's listing reads the comparison's outcome from compare.json
	m, _ := filepath.Glob(filepath.Join(root, "compare", "*", reports.CompareVerdictFile))
	if len(m) != 1 {
		t.Fatalf("%d %s files, want 1", len(m), reports.CompareVerdictFile)
	}
	if b, _ := os.ReadFile(m[0]); !strings.Contains(string(b), `"shows": true`) {
		t.Errorf("%s: %s", m[0], b)
	}
}

// Every command that takes --junit checks the path before any run
// starts: a folder, or a path under a file, is exit 2 with one line naming
// --junit, and the store stays empty (nothing ran for the run's time
// limit first).
func TestJUnitPathCheckedFirst(t *testing.T) {
	bin := binary(t)
	store := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"run", "--time-limit", "30s"},
		{"run", "--runs", "2", "--seed", "1", "--time-limit", "30s"},
		{"catalog", "--quick"},
		{"compare", "--time-limit", "30s"},
		{"sweep", "--time-limit", "30s"},
		{"power", "--time-limit", "30s"},
		{"zoo", "--time-limit", "30s"},
	}
	var cases []usageCase
	for _, c := range commands {
		for _, bad := range []string{t.TempDir(), filepath.Join(file, "junit.xml")} {
			cases = append(cases, usageCase{append(slices.Clone(c), "--store", store, "--junit", bad), "--junit " + bad + ": cannot write there"})
		}
	}
	wantUsageErrors(t, bin, store, cases)
}
