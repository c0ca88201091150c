package zoo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, want := range []string{"**1 libraries, 3 entries.", "## Known bugs", "lock-v1 · partition (leader) (" + pr + "): 1/1 detected, known bug reproduced", "lock-v2 · partition (leader) (" + pr + "): 1/1 valid, fixed version clean"} {
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
	es, err := Load("../../zoo")
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
