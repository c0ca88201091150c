package benchrun

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// smallHistory is a history in the generator's format: 300 leases of
// lock0, one after another, each a counter section on counter0; every
// 50th release times out and its process retires; partitions of n1 as
// info start and stop records at 1 s, 2 s and 5 s (the last less than
// healMargin before the end).
func smallHistory() history.History {
	b := historytest.New()
	ttl := historytest.TTL(100)
	p, next := 0, 1
	for i := range int64(300) {
		t, tok, fence := i*20+1, fmt.Sprintf("t%d", i), historytest.Fence(i+1)
		b.Add(t, history.Invoke, p, history.FAcquire, "lock0", "", ttl)
		b.Add(t+1, history.OK, p, history.FAcquire, "lock0", tok, fence, ttl, historytest.Validity(t+97))
		b.Add(t+2, history.Invoke, p, history.FRead, "counter0", "")
		b.Add(t+3, history.OK, p, history.FRead, "counter0", "", historytest.Value(i))
		b.Op(t+4, t+5, history.OK, p, history.FWrite, "counter0", "", historytest.Value(i+1), fence)
		b.Add(t+6, history.Invoke, p, history.FRelease, "lock0", tok)
		if i%50 == 49 {
			b.Add(t+7, history.Info, p, history.FRelease, "lock0", tok, historytest.Err("i/o timeout"))
			p, next = next, next+1
		} else {
			b.Add(t+7, history.OK, p, history.FRelease, "lock0", tok)
		}
	}
	for _, w := range [][2]int64{{1000, 1200}, {2000, 2300}, {5000, 5500}} { // at w + 0.5 ms
		b.Append(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "n1", Time: w[0]*historytest.MS + historytest.MS/2})
		b.Append(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "partition", Time: w[1]*historytest.MS + historytest.MS/2})
	}
	return b.Sorted()
}

// The folders load as complete runs of the configuration, with their
// faults planned, applied and healed and every client record in a slot;
// the correct one analyzes valid with its faults exercising the lock, the
// other invalid with a lost update.
func TestBenchFoldersAnalyze(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "generated.jsonl")
	if err := history.WriteFile(src, smallHistory()); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "run")
	if err := writeFolders(src, prefix); err != nil {
		t.Fatal(err)
	}
	res, _, err := analysis.Analyze(context.Background(), prefix+correctSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if res.Incomplete != "" || res.Config.Lock != "fenced" || res.Config.Clients != clients || len(res.Plan.Steps) != 2 {
		t.Fatalf("incomplete %q, lock %q, %d clients, plan of %d steps; want complete, fenced, %d clients, 2 steps (the third stops too late)",
			res.Incomplete, res.Config.Lock, res.Config.Clients, len(res.Plan.Steps), clients)
	}
	if k := res.Coverage.Kind("partition"); k.Applied != 2 || k.Exercised != 2 {
		t.Errorf("partitions applied %d, exercised %d; want 2 and 2", k.Applied, k.Exercised)
	}
	if err := res.EachRecord(func(o *history.Op) {
		if !o.IsNemesis() && o.Client == "" {
			t.Fatalf("record %d of process %d has no client slot", o.Index, o.Process)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("correct folder: %v (%s), want valid", res.Verdict.Valid, res.Verdict.Error)
	}
	res, _, err = analysis.Analyze(context.Background(), prefix+lostSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Valid != checker.Invalid || !hasAnomaly(res.Verdict, "lost-update") {
		t.Fatalf("lost-update folder: %v, anomalies %v; want invalid with a lost-update", res.Verdict.Valid, kinds(res.Verdict))
	}
}

func hasAnomaly(r checker.Result, kind string) bool { return slices.Contains(kinds(r), kind) }

func kinds(r checker.Result) []string {
	var out []string
	for _, p := range r.Results {
		for _, a := range p.Anomalies {
			out = append(out, a.Kind)
		}
	}
	return out
}
