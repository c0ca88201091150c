package benchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

const ms = int64(time.Millisecond)

// smallHistory is a history in the generator's format: 300 leases of
// lock0, one after another, each a counter section on counter0; every
// 50th release times out and its process retires; partitions of n1 as
// info start and stop records at 1 s, 2 s and 5 s (the last less than
// healMargin before the end).
func smallHistory() history.History {
	var h history.History
	add := func(o history.Op) { h = append(h, o) }
	p, next := 0, 1
	for i := range int64(300) {
		t, tok := i*20*ms+ms, fmt.Sprintf("t%d", i)
		add(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: "lock0", TTL: 100 * ms, Time: t})
		add(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: "lock0", Token: tok, Fence: i + 1, TTL: 100 * ms, Validity: t + 97*ms, Time: t + ms})
		add(history.Op{Type: history.Invoke, Process: p, F: history.FRead, Key: "counter0", Time: t + 2*ms})
		add(history.Op{Type: history.OK, Process: p, F: history.FRead, Key: "counter0", Value: i, Time: t + 3*ms})
		add(history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: "counter0", Value: i + 1, Fence: i + 1, Time: t + 4*ms})
		add(history.Op{Type: history.OK, Process: p, F: history.FWrite, Key: "counter0", Value: i + 1, Fence: i + 1, Time: t + 5*ms})
		add(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: "lock0", Token: tok, Time: t + 6*ms})
		rel := history.Op{Type: history.OK, Process: p, F: history.FRelease, Key: "lock0", Token: tok, Time: t + 7*ms}
		if i%50 == 49 {
			rel.Type, rel.Error = history.Info, "i/o timeout"
			p, next = next, next+1
		}
		add(rel)
	}
	for _, w := range [][2]int64{{1000, 1200}, {2000, 2300}, {5000, 5500}} {
		add(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "n1", Time: w[0]*ms + ms/2})
		add(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "partition", Time: w[1]*ms + ms/2})
	}
	slices.SortStableFunc(h, func(a, b history.Op) int { return int(a.Time - b.Time) })
	for i := range h {
		h[i].Index = int64(i)
	}
	return h
}

func writeJSONL(t *testing.T, path string, h history.History) {
	t.Helper()
	var b []byte
	for _, o := range h {
		line, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The folders load as complete runs of the configuration, with their
// faults planned, applied and healed and every client record in a slot;
// the correct one analyzes valid with its faults exercising the lock, the
// other invalid with a lost update.
func TestBenchFoldersAnalyze(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "generated.jsonl")
	writeJSONL(t, src, smallHistory())
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
