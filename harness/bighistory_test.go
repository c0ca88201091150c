package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/workloads"
)

// A run that records more than its live tail keeps only recent records
// in memory, hands the check and the report its history.jsonl to read
// streamed (every record, none loaded whole), and still aims its faults
// at holders (the targeter catches up on every progress tick).
func TestRunBeyondLiveTailChecksWholeFile(t *testing.T) {
	old := liveTail
	liveTail = 1 // one chunk of records stays in memory
	t.Cleanup(func() { liveTail = old })
	// TTL 200 ms, holds of 1 ms: many records, and room for a loaded
	// machine's scheduling delays (at a 20 ms TTL a holder's write
	// delayed by the load landed after its lease: a true stale write of
	// an unfenced lock, which made this test flaky).
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 8, TTL: 200 * time.Millisecond,
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: time.Millisecond, Think: time.Millisecond},
		Nemesis:   []string{"partition"}, FaultInterval: 300 * time.Millisecond, MinCoverage: -1,
		TimeLimit: 5 * time.Second, Seed: 3, Store: t.TempDir()})
	log := storetest.Read(t, res.Dir, store.LogFile)
	if !strings.Contains(log, "read streamed from history.jsonl") {
		t.Skipf("the run recorded only %d records, within its live tail: nothing left in the file", res.Records)
	}
	if res.History.Path() == "" {
		t.Fatalf("a run beyond its live tail hands over its records in memory")
	}
	h := recordsOf(t, res)
	for i, op := range h {
		if op.Index != int64(i) {
			t.Fatalf("record %d has index %d", i, op.Index)
		}
	}
	var tf analysis.TestFile
	storetest.ReadJSON(t, res.Dir, store.TestFile, &tf)
	if tf.Records != len(h) || tf.Records != res.Records || !tf.Completed {
		t.Errorf("test.json: %d records, completed %v; the result counts %d, its file has %d", tf.Records, tf.Completed, res.Records, len(h))
	}
	if res.Verdict.Valid != checker.Valid {
		t.Errorf("verdict %v:\n%s", res.Verdict.Valid, res.Verdict)
	}
	if !strings.Contains(log, "holder") {
		t.Logf("log:\n%s", log)
	}
}

// A real run of more records than its live tail (lowered here) is
// checked streamed from its files at its end, without its history or
// resource log in memory; checking the same history held in memory gives
// the same verdict, anomalies and coverage, and analyze of the folder
// gives them again.
func TestBigHistoryCheckedStreamed(t *testing.T) {
	old := liveTail
	liveTail = 1
	t.Cleanup(func() { liveTail = old })
	plan := nemesis.Scripted(1500*time.Millisecond,
		nemesis.Step{At: 400 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 200 * time.Millisecond},
		nemesis.Step{At: 900 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindPartition}, Duration: 200 * time.Millisecond})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 4, TTL: 200 * time.Millisecond, Workload: "counter",
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: 2 * time.Millisecond, Think: time.Millisecond},
		Plan:      &plan, TimeLimit: plan.End, MinCoverage: -1, Seed: 5, Store: t.TempDir()})
	if log := storetest.Read(t, res.Dir, store.LogFile); !strings.Contains(log, "read streamed") {
		t.Skipf("the run recorded only %d records, within its live tail: nothing left in the file", res.Records)
	}
	if res.History.Path() == "" || res.Writes != nil {
		t.Fatalf("a %d-record history was not left in its files: source %q, %d writes in memory", res.Records, res.History.Path(), len(res.Writes))
	}
	// The pause is aimed at a holder, but holds last 1-2 ms: on a loaded
	// machine it can land just after the release, on a waiter (flake-check
	// run 4). Either way the coverage compared below names a touched op.
	if c := res.Coverage; c == nil || len(c.Windows) != 2 || (c.Windows[0].Holder == nil && c.Windows[0].Waiter == nil) {
		t.Fatalf("streamed coverage %+v: want 2 windows, the pause touching a holder or a waiter", res.Coverage)
	}
	// the same history held in memory, checked by the same engine
	h := recordsOf(t, res)
	var ws []resource.Write
	clustertest.Must(t, res.EachWrite(func(w *resource.Write) { ws = append(ws, *w) }))
	whole := &analysis.Result{Config: res.Config, Plan: res.Plan, Final: res.Final, History: history.Slice(h), Writes: ws}
	clustertest.Must(t, analysis.Check(context.Background(), whole))
	t.Logf("%d records, verdict %v, %d fault windows", res.Records, whole.Verdict.Valid, len(whole.Coverage.Windows))
	assertSameCheck(t, "run's end, streamed", res, whole)
	again, _, err := analysis.Analyze(context.Background(), res.Dir)
	clustertest.Must(t, err)
	if again.History.Path() == "" || again.Records != res.Records {
		t.Fatalf("analyze: source %q, %d records counted; want left in its file, %d", again.History.Path(), again.Records, res.Records)
	}
	assertSameCheck(t, "analyze, streamed", again, whole)
}

// assertSameCheck fails unless got's verdict, anomalies and coverage are
// want's.
func assertSameCheck(t *testing.T, what string, got, want *analysis.Result) {
	t.Helper()
	if got.Verdict.Valid != want.Verdict.Valid || got.Verdict.Error != want.Verdict.Error {
		t.Errorf("%s: verdict %v %q, whole check %v %q", what, got.Verdict.Valid, got.Verdict.Error, want.Verdict.Valid, want.Verdict.Error)
	}
	for i, r := range want.Verdict.Results {
		if i >= len(got.Verdict.Results) || got.Verdict.Results[i].Valid != r.Valid || len(got.Verdict.Results[i].Anomalies) != len(r.Anomalies) {
			t.Errorf("%s: checker %s differs from the whole check's", what, r.Name)
		}
	}
	g, _ := json.Marshal(got.Coverage)
	w, _ := json.Marshal(want.Coverage)
	if string(g) != string(w) {
		t.Errorf("%s: coverage\n%s\nwhole check's\n%s", what, g, w)
	}
}
