package power

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// holderPaused is scenario name's configuration with its random faults
// replaced by two scripted 1 s pauses of the lock holder (2 x TTL), a
// run of under 4 s.
func holderPaused(t *testing.T, name, root string) config.Config {
	sc, err := Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	c := sc[0].Config
	pause := nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}
	p := nemesis.Scripted(time.Second,
		nemesis.Step{At: 500 * time.Millisecond, Fault: pause, Duration: time.Second},
		nemesis.Step{At: 1800 * time.Millisecond, Fault: pause, Duration: time.Second})
	c.Plan, c.Nemesis, c.TimeLimit, c.Store, c.Seed = &p, nil, p.End, root, 1
	return c
}

// FromStore on two real runs: the table it builds says what the runs'
// own results say, the newest run of a seed counts, and a run without
// results.json is left out with a note.
func TestFromStoreReadsRealRuns(t *testing.T) {
	root := t.TempDir()
	want := map[string]*analysis.Result{}
	for _, name := range []string{"single-no-fencing", "fenced-fencing"} {
		res := storetest.Run(t, harness.Run, holderPaused(t, name, root))
		want[name] = res
		t.Logf("%s: %s in %s", name, res.Verdict.Valid, res.Dir)
	}
	single, fenced := want["single-no-fencing"], want["fenced-fencing"]
	if single.Verdict.Valid != checker.Invalid {
		t.Fatalf("single without fencing under holder pauses of 2 x TTL: %s, want invalid", single.Verdict.Valid)
	}
	if fenced.Verdict.Valid == checker.Invalid {
		t.Fatalf("fenced with fencing: a false alarm: %s", fenced.Verdict)
	}
	wantAt, ok := DetectionTime(single.Verdict, single.History)
	if !ok || wantAt <= 500*time.Millisecond || wantAt > single.Config.TimeLimit+5*time.Second {
		t.Fatalf("single: detection time %v, %v: not after the first pause", wantAt, ok)
	}

	// A run still going (no results.json) is newer than the real one: it
	// is left out and noted, not counted as unknown.
	storetest.Copy(t, single.Dir, filepath.Join(root, "single-no-fencing", "20990101T000000.000"), store.TestFile)

	sc, _ := Select([]string{"single-no-fencing", "fenced-fencing", "unsafe-del"})
	rep, err := FromStore(root, sc, 0, DefaultTargets)
	if err != nil {
		t.Fatal(err)
	}
	u, s, f := rep.Rows[0], rep.Rows[1], rep.Rows[2] // table order
	if s.Runs != 1 || s.Invalid != 1 || !s.Outcomes[0].DetectKnown || s.Outcomes[0].Detect != wantAt || s.Median != wantAt {
		t.Errorf("single row %+v; want 1 invalid run detected at %v", s, wantAt)
	}
	if f.Runs != 1 || f.Invalid != 0 || f.Outcomes[0].Verdict != fenced.Verdict.Valid {
		t.Errorf("fenced row %+v; want 1 run, %s", f, fenced.Verdict.Valid)
	}
	if u.Runs != 0 || u.Mark != Miss {
		t.Errorf("unsafe-del row %+v; want no runs, MISS", u)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "1 stored runs have no results.json") {
		t.Errorf("notes %q; want the pending run noted", rep.Notes)
	}

	// A newer run of the same seed counts instead of the older one: copy
	// the single run as a newer folder whose results say valid.
	newer := filepath.Join(root, "single-no-fencing", "20990102T000000.000")
	storetest.Copy(t, single.Dir, newer, store.TestFile, store.HistoryFile)
	valid := checker.Result{Name: "lockstorm", Valid: checker.Valid}
	storetest.WriteJSON(t, newer, store.ResultsFile, valid)
	rep, err = FromStore(root, sc[1:2], 0, DefaultTargets)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Rows[0]; s.Runs != 1 || s.Valid != 1 || s.Outcomes[0].Dir != newer {
		t.Errorf("after a newer run of seed 1: %+v; want only the newer, valid run", s)
	}
	// --seeds N keeps seeds 1..N: a run of seed 5 counts without it only.
	seed5 := filepath.Join(root, "single-no-fencing", "20990103T000000.000")
	var tf map[string]any
	storetest.ReadJSON(t, newer, store.TestFile, &tf)
	tf["config"].(map[string]any)["seed"] = 5
	storetest.WriteJSON(t, seed5, store.TestFile, tf)
	storetest.WriteJSON(t, seed5, store.ResultsFile, valid)
	for seeds, runs := range map[int]int{0: 2, 1: 1, 5: 2} {
		if rep, _ := FromStore(root, sc[1:2], seeds, DefaultTargets); rep.Rows[0].Runs != runs {
			t.Errorf("seeds %d: %d runs, want %d", seeds, rep.Rows[0].Runs, runs)
		}
	}

	checkReportFiles(t, rep)

	if _, err := FromStore(filepath.Join(root, "nope"), sc, 0, DefaultTargets); err == nil {
		t.Error("FromStore of a missing folder: no error")
	}
}

// checkReportFiles writes rep's files: power.json round-trips the one
// valid single-no-fencing row, power.md has it in its table.
func checkReportFiles(t *testing.T, rep *Report) {
	t.Helper()
	out := t.TempDir()
	if err := rep.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	var back Report
	if storetest.ReadJSON(t, out, JSONFile, &back); len(back.Rows) != 1 || back.Rows[0].Valid != 1 || back.Rows[0].Name != "single-no-fencing" {
		t.Errorf("power.json: %+v", back.Rows)
	}
	if md := storetest.Read(t, out, MarkdownFile); !strings.Contains(md, "| single-no-fencing | single, 1n/3c, ttl 500ms, client-pause | 1 | 0/1 0% |") {
		t.Errorf("power.md:\n%s", md)
	}
}
