package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lockstorm/lockstorm/internal/lockstormbin"
	"github.com/lockstorm/lockstorm/reports"
)

// shardBinary is the lockstorm binary, also on PATH for process clients.
func shardBinary(t *testing.T) string {
	t.Helper()
	bin, err := lockstormbin.OnPath()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// result is one command's exit status and output.
type result struct {
	code           int
	stdout, stderr string
}

// parallel runs the command lines side by side (machines of a sharded
// campaign, and the unsharded run to compare with).
func parallel(t *testing.T, bin string, lines ...[]string) []result {
	t.Helper()
	out := make([]result, len(lines))
	var wg sync.WaitGroup
	for i, args := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &out[i]
			r.code, r.stdout, r.stderr = exec1(t, bin, args...)
		}()
	}
	wg.Wait()
	return out
}

// caseOutcomes are a JUnit document's cases as "suite/case: outcome",
// sorted.
func caseOutcomes(doc reports.JUnitSuites) []string {
	var out []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			o := "pass"
			switch {
			case c.Failure != nil:
				o = "failure " + c.Failure.Type
			case c.Error != nil:
				o = "error " + c.Error.Type
			case c.Skipped != nil:
				o = "skipped"
			}
			out = append(out, s.Name+"/"+c.Name+": "+o)
		}
	}
	sort.Strings(out)
	return out
}

// timingsAndDirs are the parts of a catalogue line that differ between
// two runs of a row: its run time, detection time and folder.
var timingsAndDirs = regexp.MustCompile(`ran [0-9.]+s|detected [0-9.]+s| \S+/catalog-\S+$`)

// catalogRows are the table lines of catalog's (or merge's) output,
// without timings and folders.
func catalogRows(stdout string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		if regexp.MustCompile(`^\d+ +\S`).MatchString(l) {
			out = append(out, timingsAndDirs.ReplaceAllString(l, ""))
		}
	}
	return out
}

// Two catalogue rows (3 and 5, Go locks) run as shards 0/2 and 1/2 on two "machines" and
// merged give the unsharded run's table (apart from timings and folders)
// and JUnit verdicts; merge refuses a missing, repeated or foreign shard.
func TestMergeCatalogShards(t *testing.T) {
	bin := shardBinary(t)
	tmp := t.TempDir()
	p := func(s string) string { return filepath.Join(tmp, s) }
	only := []string{"catalog", "--only", "3,5"}
	rs := parallel(t, bin,
		append(only, "--store", p("whole"), "--junit", p("whole.xml")),
		append(only, "--store", p("s0"), "--junit", p("s0.xml"), "--shard", "0/2"),
		append(only, "--store", p("s1"), "--junit", p("s1.xml"), "--shard", "1/2"))
	for i, r := range rs {
		if r.code != 0 {
			t.Fatalf("command %d: exit %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	if n := len(catalogRows(rs[1].stdout)) + len(catalogRows(rs[2].stdout)); n != 2 {
		t.Fatalf("the shards ran %d rows, want 1 each\n%s\n%s", n, rs[1].stdout, rs[2].stdout)
	}
	code, stdout, stderr := exec1(t, bin, "merge", p("s1"), p("s0"), "--out", p("merged"), "--junit", p("merged.xml"))
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want, got := catalogRows(rs[0].stdout), catalogRows(stdout)
	if strings.Join(want, "\n") != strings.Join(got, "\n") || len(got) != 2 {
		t.Errorf("merged table\n%s\nwant the unsharded\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w, g := caseOutcomes(readJUnit(t, p("whole.xml"))), caseOutcomes(readJUnit(t, p("merged.xml"))); strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("merged JUnit cases %v, want %v", g, w)
	}
	table, err := os.ReadFile(p("merged/catalog.txt"))
	if err != nil || len(catalogRows(string(table))) != 2 {
		t.Errorf("merged catalog.txt: %v\n%s", err, table)
	}
	// The merged table's run folders were copied into the merged store.
	for _, l := range strings.Split(strings.TrimSpace(string(table)), "\n") {
		dir := l[strings.LastIndex(l, " ")+1:]
		if _, err := os.Stat(filepath.Join(dir, "history.jsonl")); err != nil {
			t.Errorf("merged row's folder %s: %v", dir, err)
		}
	}
	wantUsageErrors(t, bin, t.TempDir(), []usageCase{
		{[]string{"merge", p("s0"), "--out", p("m2")}, "shard 1/2 missing"},
		{[]string{"merge", p("s0"), p("s0"), p("s1"), "--out", p("m2")}, "shard 0/2 is given twice"},
		{[]string{"merge", p("whole"), "--out", p("m2")}, "holds no shard manifest"},
		{[]string{"merge"}, "merge needs the shards' store folders"},
		{[]string{"catalog", "--only", "3", "--shard", "2/2"}, "K counts from 0"},
		{[]string{"catalog", "--only", "3", "--shard", "1"}, "--shard must be K/N"},
	})
}
