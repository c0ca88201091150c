package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
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

// catalogRows are the rows of the campaign summary table in catalog's
// (or merge's) output: cell, seed, verdict, claim, holds, seen, folder.
func catalogRows(stdout string) [][]string {
	var out [][]string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "| catalog-") {
			out = append(out, strings.Split(strings.Trim(l, "| "), " | "))
		}
	}
	return out
}

// Two catalogue rows (3 and 5, Go locks) run as shards 0/2 and 1/2 on two "machines" and
// merged give the unsharded run's table (each row, its expectation and
// whether it agreed; the observed counts, such as how many stale writes
// were rejected, differ between executions)
// and JUnit verdicts; merge refuses a missing, repeated or foreign shard.
func TestMergeCatalogShards(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
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
	if n := len(rowAgreements(catalogRows(rs[1].stdout))) + len(rowAgreements(catalogRows(rs[2].stdout))); n != 2 {
		t.Fatalf("the shards ran %d rows, want 1 each\n%s\n%s", n, rs[1].stdout, rs[2].stdout)
	}
	code, stdout, stderr := exec1(t, bin, "merge", p("s1"), p("s0"), "--out", p("merged"), "--junit", p("merged.xml"))
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want, got := rowAgreements(catalogRows(rs[0].stdout)), rowAgreements(catalogRows(stdout))
	if strings.Join(want, "\n") != strings.Join(got, "\n") || len(got) != 2 {
		t.Errorf("merged table\n%s\nwant the unsharded\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w, g := caseOutcomes(readJUnit(t, p("whole.xml"))), caseOutcomes(readJUnit(t, p("merged.xml"))); strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("merged JUnit cases %v, want %v", g, w)
	}
	tables, _ := filepath.Glob(p("merged/campaigns/catalog/*/summary.md"))
	if len(tables) != 1 {
		t.Fatalf("merged campaign tables: %v", tables)
	}
	table, _ := os.ReadFile(tables[0])
	if len(catalogRows(string(table))) < 2 {
		t.Errorf("merged summary.md:\n%s", table)
	}
	// The merged table's run folders were copied into the merged store.
	for _, r := range catalogRows(string(table)) {
		dir := r[len(r)-1]
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

// sweepVerdicts are table.csv's (ttl, renew, fencing, fault, pause, run,
// verdict) columns: what the heat maps count.
func sweepVerdicts(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "table.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, ",")
		out = append(out, strings.Join(f[:7], ",")) // ttl,renew,fencing,fault,pause,run,verdict
	}
	return out
}

// kOfN is a points table row's k/N invalid column.
var kOfN = regexp.MustCompile(`\| \d+/\d+ invalid`)

// pointRows are the printed points table's setting and k/N columns (the
// heat maps' data), and the recommendation line.
func pointRows(stdout string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		switch f := strings.Split(l, "|"); {
		case strings.HasPrefix(l, "recommendation: "):
			out = append(out, l)
		case len(f) > 6 && kOfN.MatchString(l):
			out = append(out, strings.Join(f[:6], "|"))
		}
	}
	return out
}

// A sweep of 2 cells x 2 runs, sharded 2 ways and merged, holds exactly
// the unsharded sweep's (cell, run) items, each with the verdict its shard
// measured; its heat-map counts, JUnit cases and recommendation come from
// those verdicts, and its page's run links resolve. (Verdicts are not
// compared with the unsharded sweep's own runs: a holder paused longer
// than the TTL loses an update in most runs, not in every one, so two
// executions of the same seed may differ.)
func TestMergeSweepShards(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	bin := shardBinary(t)
	tmp := t.TempDir()
	p := func(s string) string { return filepath.Join(tmp, s) }
	// Verdicts that do not depend on the machine's load: short holds
	// (50 ms at most) under a 500ms TTL are valid without faults, and a
	// holder paused 700ms, longer than the TTL, without renewal loses
	// updates.
	grid := []string{"sweep", "--name", "tiny", "--ttl", "500ms", "--renew", "none", "--fencing-axis", "off",
		"--pause", "0,700ms", "--hold-min", "10ms", "--hold-max", "50ms", "--seeds", "2", "--time-limit", "2700ms", "--clients", "3"}
	rs := parallel(t, bin,
		append(grid, "--store", p("whole"), "--junit", p("whole.xml")),
		append(grid, "--store", p("s0"), "--shard", "0/2", "--junit", p("s0.xml")),
		append(grid, "--store", p("s1"), "--shard", "1/2"))
	for i, r := range rs {
		if r.code != 0 {
			t.Fatalf("command %d: exit %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	s0v, s1v := sweepVerdicts(t, p("s0/sweeps/tiny")), sweepVerdicts(t, p("s1/sweeps/tiny"))
	if len(s0v) != 2 || len(s1v) != 2 {
		t.Errorf("shards ran %v and %v, want 2 of the 4 runs each", s0v, s1v)
	}
	if s0 := readJUnit(t, p("s0.xml")); len(s0.Suites[0].Cases) != 2 || s0.Errors != 0 {
		t.Errorf("shard 0/2's JUnit: %d cases, %d errors; want its 2 runs, each with a verdict", len(s0.Suites[0].Cases), s0.Errors)
	}
	// The "machines" upload their stores into one folder each.
	art := p("artifacts")
	for _, s := range []string{"s0", "s1"} {
		os.MkdirAll(art, 0o755)
		if err := os.Rename(p(s), filepath.Join(art, "store-"+s)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := exec1(t, bin, "merge", art, "--out", p("merged"), "--junit", p("merged.xml"))
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	merged := sweepVerdicts(t, p("merged/sweeps/tiny"))
	shards := append(append([]string(nil), s0v...), s1v...)
	sort.Strings(shards)
	if g := append([]string(nil), merged...); !slices.Equal(sortedCopy(g), shards) {
		t.Errorf("merged verdicts\n%s\nwant the shards' own\n%s", strings.Join(merged, "\n"), strings.Join(shards, "\n"))
	}
	if w, g := itemsOf(sweepVerdicts(t, p("whole/sweeps/tiny"))), itemsOf(merged); !slices.Equal(w, g) {
		t.Errorf("merged items %v, want the unsharded %v", g, w)
	}
	points := pointRows(stdout)
	if len(points) != 3 || !strings.HasPrefix(points[2], "recommendation: ") {
		t.Fatalf("merged points and recommendation:\n%s", strings.Join(points, "\n"))
	}
	for i, pause := range []string{"0", "700ms"} {
		k := 0
		for _, v := range merged {
			if strings.Split(v, ",")[4] == pause && strings.HasSuffix(v, ",invalid") {
				k++
			}
		}
		if want := fmt.Sprintf("| %d/2 invalid ", k); !strings.Contains(points[i]+" ", want) {
			t.Errorf("merged point %q, want %q from the merged verdicts", points[i], want)
		}
	}
	if w, g := caseNames(readJUnit(t, p("whole.xml"))), caseNames(readJUnit(t, p("merged.xml"))); !slices.Equal(w, g) {
		t.Errorf("merged JUnit cases %v, want %v", g, w)
	}
	checkMergedSweepFiles(t, p)
	// A shard of another sweep is refused, naming the setting.
	other := append(slices.Clone(grid), "--store", p("o1"), "--shard", "1/2", "--hold-max", "60ms")
	if r := parallel(t, bin, other); r[0].code != 0 {
		t.Fatalf("other sweep: exit %d\n%s", r[0].code, r[0].stderr)
	}
	wantUsageErrors(t, bin, t.TempDir(), []usageCase{
		{[]string{"merge", filepath.Join(art, "store-s0"), p("o1"), "--out", p("m2")}, "ran with different settings"},
		{[]string{"sweep", "--shard", "0/0"}, "N must be between 1"},
	})
}

// checkMergedSweepFiles checks a merged sweep's store (under p("merged")):
// its replay lines read fault plans copied into it, and its page's files
// and run links exist.
func checkMergedSweepFiles(t *testing.T, p func(string) string) {
	t.Helper()
	// The merged runs' replay lines read the fault plans copied into the
	// merged store, not the shards' own.
	plans := regexp.MustCompile(`--fault-plan (\S+)`).FindAllStringSubmatch(readFile(t, p("merged.xml")), -1)
	if len(plans) != 2 { // the two runs with pauses
		t.Errorf("merged JUnit names %d fault plans, want 2", len(plans))
	}
	for _, m := range plans {
		if _, err := os.Stat(m[1]); err != nil || !strings.HasPrefix(m[1], p("merged")) {
			t.Errorf("merged replay reads %s, not a plan in the merged store (%v)", m[1], err)
		}
	}
	for _, f := range []string{"index.html", "violations.png", "availability.png", "table.md"} {
		if _, err := os.Stat(p("merged/sweeps/tiny/" + f)); err != nil {
			t.Errorf("merged sweep: %v", err)
		}
	}
	page, _ := os.ReadFile(p("merged/sweeps/tiny/index.html"))
	links := regexp.MustCompile(`href="(\.\./\.\./sweep-tiny/[^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(links) < 4 {
		t.Errorf("merged page links %d runs, want 4", len(links))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(p("merged/sweeps/tiny"), l[1])); err != nil {
			t.Errorf("merged page's link %s: %v", l[1], err)
		}
	}
}

// runSeeds maps each run folder's seed to its verdict, over a store's
// runs of test.
func runSeeds(t *testing.T, root, test string) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	for _, d := range runFolders(t, root, test) {
		run, err := analysis.LoadChecked(d)
		if err != nil {
			t.Fatal(err)
		}
		out[run.Config.Seed] = run.Verdict.Valid.String()
	}
	return out
}

// A campaign of 4 runs as shards 0/2 and 1/2 runs the unsharded
// campaign's seeds; merged, it has its verdicts, summary counts and JUnit
// suites (named by campaign run number).
func TestMergeRunShards(t *testing.T) {
	bin := shardBinary(t)
	tmp := t.TempDir()
	p := func(s string) string { return filepath.Join(tmp, s) }
	run := []string{"run", "--clients", "2", "--ttl", "200ms", "--time-limit", "1s", "--nemesis", "none", "--seed", "9", "--runs", "4"}
	rs := parallel(t, bin,
		append(run, "--store", p("whole"), "--junit", p("whole.xml")),
		append(run, "--store", p("s0"), "--shard", "0/2", "--junit", p("s0.xml")),
		append(run, "--store", p("s1"), "--shard", "1/2"))
	for i, r := range rs {
		if r.code != 0 {
			t.Fatalf("command %d: exit %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	if !strings.Contains(rs[1].stdout, "== run 1/4 ") || !strings.Contains(rs[1].stdout, "== run 3/4 ") || strings.Contains(rs[1].stdout, "== run 2/4 ") || !strings.Contains(rs[1].stdout, "run single-counter: 2 of 2 runs; claims hold 2, fail 0, cannot say 0 (shard 0/2 of a campaign of 4 runs") {
		t.Errorf("shard 0/2 did not run runs 1 and 3:\n%s", rs[1].stdout)
	}
	code, stdout, stderr := exec1(t, bin, "merge", p("s0"), p("s1"), "--out", p("merged"), "--junit", p("merged.xml"))
	if code != 0 || !strings.Contains(stdout, "run single-counter: 4 of 4 runs; claims hold 4, fail 0, cannot say 0") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	whole, merged := runSeeds(t, p("whole"), "single-counter"), runSeeds(t, p("merged"), "single-counter")
	if len(whole) != 4 || fmt.Sprint(whole) != fmt.Sprint(merged) {
		t.Errorf("merged runs (seed: verdict) %v, want the unsharded %v", merged, whole)
	}
	w, g := readJUnit(t, p("whole.xml")), readJUnit(t, p("merged.xml"))
	if strings.Join(caseOutcomes(w), "\n") != strings.Join(caseOutcomes(g), "\n") || len(g.Suites) != 1 || len(g.Suites[0].Cases) != 4 {
		t.Errorf("merged JUnit\n%v\nwant\n%v", caseOutcomes(g), caseOutcomes(w))
	}
	wantUsageErrors(t, bin, t.TempDir(), []usageCase{
		{[]string{"run", "--runs", "4", "--shard", "0/2"}, "--shard needs --seed"},
		{[]string{"run", "--runs", "4", "--seed", "3", "--until-invalid", "--shard", "0/2"}, "--until-invalid cannot be combined with --shard"},
		{[]string{"run", "--runs", "2", "--seed", "3", "--shard", "0/3"}, "leave some of the 3 shards nothing to do"},
		{[]string{"run", "--runs", "2", "--seed", "3", "--shard", "3/3"}, "K counts from 0"},
	})
}

// itemsOf drops the verdict column of sweepVerdicts' lines: which (cell,
// run) items were measured.
func itemsOf(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v[:strings.LastIndex(v, ",")]
	}
	sort.Strings(out)
	return out
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// caseNames are a JUnit document's suite/case names, sorted.
func caseNames(doc reports.JUnitSuites) []string {
	var out []string
	for _, o := range caseOutcomes(doc) {
		out = append(out, o[:strings.LastIndex(o, ": ")])
	}
	return out
}

// rowAgreements keeps of each catalogue row (one per cell and seed, its
// claims joined) its cell, seed, verdict, claims and whether each held:
// what must not depend on the execution.
func rowAgreements(rows [][]string) []string {
	var out []string
	idx := map[string]int{}
	for _, r := range rows {
		key := r[0] + " seed " + r[1] + " " + r[2]
		if _, ok := idx[key]; !ok {
			idx[key] = len(out)
			out = append(out, key)
		}
		out[idx[key]] += "; " + r[3] + " -> " + r[4]
	}
	return out
}
