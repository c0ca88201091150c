package zoo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const pr = "https://github.com/example/lock/pull/1"

func TestLoadChecksKnownAndFixed(t *testing.T) {
	cases := []struct{ edit, want string }{
		{strings.Replace(goodManifest, "why: the key has a TTL", "why: the key has a TTL\n    known: "+pr, 1), "known: names a bug the cell must show"},
		{strings.Replace(goodManifest, "why: no fencing", "why: no fencing\n    known: github.com/x/y/pull/1", 1), "upstream URLs"},
		{strings.Replace(strings.Replace(goodManifest, "    clean: [lock]\n", "", 1), "why: no fencing", "why: no fencing\n    fixed: "+pr, 1), "needs clean"},
	}
	for _, tc := range cases {
		root := t.TempDir()
		writeEntry(t, root, "demo", tc.edit)
		if _, err := Load(root); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
	root := t.TempDir()
	writeEntry(t, root, "demo", strings.Replace(strings.Replace(goodManifest, "why: no fencing", "why: no fencing\n    fixed: "+pr, 1),
		"why: the key has a TTL", "why: the key has a TTL\n    fixed: "+pr, 1))
	if _, err := Load(root); err != nil {
		t.Errorf("fixed: on a valid cell and on an invalid one with clean checkers: %v", err)
	}
}

func TestClassAndSummary(t *testing.T) {
	known := Cell{Nemesis: "partition", Workload: "leader", Expect: ExpectInvalid, Checkers: []string{"lock"}, Known: pr}
	fixed := Cell{Nemesis: "partition", Workload: "leader", Expect: ExpectValid, Fixed: pr}
	plain := Cell{Nemesis: "client-pause", Workload: "counter", Expect: ExpectInvalid, Checkers: []string{"resource"}}
	other := Cell{Nemesis: "latency", Workload: "counter", Expect: ExpectInvalid, Checkers: []string{"lock"}, Known: pr + "0"}
	cases := []struct {
		c    Cell
		rs   []RunOutcome
		want Class
	}{
		{known, runs(Agree, Missed, Agree), ClassKnown},
		{known, runs(Missed, Missed, Missed), ClassMissed},
		{known, runs(Missed, Unknown, Missed), ClassUnknown},
		{fixed, runs(Agree, Agree, Agree), ClassFixed},
		{fixed, runs(Agree, Finding, Agree), ClassFinding},
		{plain, runs(Agree), ClassAgrees},
	}
	for i, tc := range cases {
		if got := judgeCell(tc.c, tc.rs); got.Class != tc.want {
			t.Errorf("case %d: %q, want %q", i, got.Class, tc.want)
		}
	}
	co := judgeCell(known, runs(Agree, Missed, Agree))
	if txt := cellText(co); txt != "2/3 detected, known bug reproduced" {
		t.Errorf("cell text %q", txt)
	}
	b := &Board{Entries: []EntryOutcome{
		{Name: "lock-v1", Upstream: "https://github.com/example/lock/tree/main/sub", Cells: []CellOutcome{judgeCell(known, runs(Agree)), judgeCell(other, runs(Missed))}},
		{Name: "lock-v2", Upstream: "https://github.com/Example/lock", Cells: []CellOutcome{judgeCell(fixed, runs(Agree)), judgeCell(plain, runs(Agree))}},
		{Name: "seed-x", Upstream: "https://github.com/lockstorm/lockstorm/tree/main/clients/python", Cells: []CellOutcome{judgeCell(fixed, runs(Finding))}},
	}}
	s := b.Summarize()
	if s.Libraries != 1 || s.Entries != 3 || s.KnownListed != 2 || s.KnownReproduced != 1 || s.FixedTwins != 2 || s.FixedClean != 1 || s.NewFindings != 1 || s.Missed != 1 {
		t.Errorf("summary %+v", s)
	}
	if line := SummaryLine(s); !strings.Contains(line, "Known bugs reproduced: 1 of 2 listed") || !strings.Contains(line, "Fixed twins clean: 1 of 2") {
		t.Errorf("summary line %q", line)
	}
	b.Summary = s
	md := Markdown(b)
	for _, want := range []string{"**1 libraries, 3 entries.", "## Known bugs", "lock-v1 · partition (leader) (" + pr + "): 1/1 detected, known bug reproduced", "lock-v2 · partition (leader) (" + pr + "): 1/1 valid, fixed version clean",
		"known bug reproduced; fixed twin lock-v2 (): 1/1 valid, fixed version clean", "latency (" + pr + "0): 0/1 detected, missed; no fixed twin in the zoo"} {
		if !strings.Contains(md, want) {
			t.Errorf("zoo.md lacks %q:\n%s", want, md)
		}
	}
}

func TestKnownCells(t *testing.T) {
	es := []Entry{
		{Manifest: Manifest{Name: "b", Cells: []Cell{{Nemesis: "partition"}, {Nemesis: "latency", Fixed: pr}}}},
		{Manifest: Manifest{Name: "a", Cells: []Cell{{Nemesis: "partition", Known: pr}}}},
		{Manifest: Manifest{Name: "c", Cells: []Cell{{Nemesis: "partition"}}}},
	}
	got := KnownCells(es)
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" || len(got[1].Cells) != 1 || got[1].Cells[0].Nemesis != "latency" {
		t.Errorf("KnownCells: %+v", got)
	}
}

// The repository's own zoo loads, every entry has a README saying how its
// adapter maps the library, and every known bug it lists is shown by an
// entry whose version is named in its manifest.
func TestRepositoryZoo(t *testing.T) {
	es, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	known := 0
	for _, e := range es {
		if _, err := os.Stat(filepath.Join(e.Dir, "README.md")); err != nil {
			t.Errorf("%s has no README.md", e.Name)
		}
		for _, c := range e.Cells {
			if c.Known != "" {
				known++
			}
		}
	}
	if known == 0 {
		t.Error("no cell of zoo/ names a known bug")
	}
	if got := KnownCells(es); len(got) == 0 {
		t.Error("KnownCells of zoo/ is empty")
	}
}

// A cell may script its faults (plan: a fault-plan JSON in the entry's
// folder): its run carries the plan and lasts until the plan's end, and
// its column names the plan.
func TestPlanCell(t *testing.T) {
	root := t.TempDir()
	m := strings.Replace(goodManifest, "why: the key has a TTL", "why: the key has a TTL\n    plan: plans/renewal.json", 1)
	dir := writeEntry(t, root, "demo", m)
	os.MkdirAll(filepath.Join(dir, "plans"), 0o755)
	plan := `{"steps":[{"at_ns":1000000000,"duration_ns":500000000,"fault":{"kind":"partition","shape":"client-from-k","clients":["@renewal"],"nodes":["n1"]}}],"heal_at_ns":1500000000,"end_ns":5000000000}`
	os.WriteFile(filepath.Join(dir, "plans", "renewal.json"), []byte(plan), 0o644)
	es, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	c := es[0].Cells[1]
	if c.Column() != "partition [renewal]" {
		t.Errorf("column %q", c.Column())
	}
	cfg := es[0].Config(c, 3, Options{TimeLimit: 12 * time.Second})
	if cfg.Plan == nil || len(cfg.Plan.Steps) != 1 || cfg.Plan.Steps[0].Fault.Clients[0] != "@renewal" || cfg.TimeLimit != 5*time.Second || cfg.PlanFile != filepath.Join(dir, "plans", "renewal.json") {
		t.Errorf("config of a plan cell: plan %+v, time limit %v, file %q", cfg.Plan, cfg.TimeLimit, cfg.PlanFile)
	}
	os.WriteFile(filepath.Join(dir, "plans", "renewal.json"), []byte(strings.Replace(plan, `"partition"`, `"client-pause"`, 1)), 0o644)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "does not name") {
		t.Errorf("a plan step of a kind the cell does not name: %v", err)
	}
	os.Remove(filepath.Join(dir, "plans", "renewal.json"))
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "plan:") {
		t.Errorf("a missing plan file: %v", err)
	}
}
