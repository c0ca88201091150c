package harness

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// A run that records more than its live window keeps only recent records
// in memory, reads the whole history back from history.jsonl for the
// check, and still aims its faults at holders (the targeter catches up on
// every progress tick).
func TestRunBeyondLiveWindowChecksWholeFile(t *testing.T) {
	old := liveWindow
	liveWindow = 1 // one chunk of records stays in memory
	t.Cleanup(func() { liveWindow = old })
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 8, TTL: 20 * time.Millisecond,
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: time.Millisecond, Think: time.Millisecond},
		Nemesis:   []string{"partition"}, FaultInterval: 300 * time.Millisecond, MinCoverage: -1,
		TimeLimit: 10 * time.Second, Seed: 3, Store: t.TempDir()})
	log := storetest.Read(t, res.Dir, store.LogFile)
	if !strings.Contains(log, "read back from history.jsonl") {
		t.Skipf("the run recorded only %d records, within its window: nothing to read back", len(res.History))
	}
	for i, op := range res.History {
		if op.Index != int64(i) {
			t.Fatalf("record %d has index %d", i, op.Index)
		}
	}
	var tf testFile
	storetest.ReadJSON(t, res.Dir, store.TestFile, &tf)
	if tf.Records != len(res.History) || !tf.Completed {
		t.Errorf("test.json: %d records, completed %v; the check read %d", tf.Records, tf.Completed, len(res.History))
	}
	if res.Verdict.Valid != checker.Valid {
		t.Errorf("verdict %v: %s", res.Verdict.Valid, res.Verdict.Error)
	}
	if !strings.Contains(log, "holder") {
		t.Logf("log:\n%s", log)
	}
}

// A real run of more than BigHistoryRecords records (lowered here) is
// checked streamed from its file at its end, without the history in
// memory; loading and checking the same folder whole gives the same
// verdict, anomalies and coverage (the streamed coverage equals the
// in-memory one on a real history), and analyze of the folder takes the
// streamed path again with the same results.
func TestBigHistoryCheckedStreamed(t *testing.T) {
	old := BigHistoryRecords
	BigHistoryRecords = 500
	t.Cleanup(func() { BigHistoryRecords = old })
	plan := nemesis.Scripted(1500*time.Millisecond,
		nemesis.Step{At: 400 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 200 * time.Millisecond},
		nemesis.Step{At: 900 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindPartition}, Duration: 200 * time.Millisecond})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 4, TTL: 200 * time.Millisecond, Workload: "counter",
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: 2 * time.Millisecond, Think: time.Millisecond},
		Plan:      &plan, TimeLimit: plan.End, MinCoverage: -1, Seed: 5, Store: t.TempDir()})
	if res.Records < BigHistoryRecords {
		t.Skipf("the run recorded %d records, fewer than %d", res.Records, BigHistoryRecords)
	}
	if res.HistoryFile == "" || res.History != nil || res.Writes != nil {
		t.Fatalf("a %d-record history was not left in its file: file %q, %d records, %d writes in memory", res.Records, res.HistoryFile, len(res.History), len(res.Writes))
	}
	if log := storetest.Read(t, res.Dir, store.LogFile); !strings.Contains(log, "checked streamed") {
		t.Errorf("log does not say the check was streamed:\n%s", log)
	}
	if res.Coverage == nil || len(res.Coverage.Windows) != 2 || res.Coverage.Windows[0].Holder == nil {
		t.Fatalf("streamed coverage %+v: want 2 windows, the pause touching a holder", res.Coverage)
	}
	BigHistoryRecords = math.MaxInt
	whole, _, err := Analyze(context.Background(), res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if whole.HistoryFile != "" || len(whole.History) != res.Records {
		t.Fatalf("the whole check read %d records (file %q), want %d in memory", len(whole.History), whole.HistoryFile, res.Records)
	}
	t.Logf("%d records, verdict %v, %d fault windows", res.Records, whole.Verdict.Valid, len(whole.Coverage.Windows))
	assertSameCheck(t, "run's end, streamed", res, whole)
	BigHistoryRecords = 500
	again, _, err := Analyze(context.Background(), res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.HistoryFile == "" || again.Records != res.Records {
		t.Fatalf("analyze of a big history: file %q, %d records; want streamed, %d", again.HistoryFile, again.Records, res.Records)
	}
	assertSameCheck(t, "analyze, streamed", again, whole)
}

// assertSameCheck fails unless got's verdict, anomalies and coverage are
// want's.
func assertSameCheck(t *testing.T, what string, got, want *Result) {
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

// scanNemesis counts a history's records and keeps its nemesis records,
// as history.Read would find them, and skips a truncated last record
// with Read's warning.
func TestScanNemesis(t *testing.T) {
	h := history.History{
		{Index: 0, Time: 1, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k"},
		{Index: 1, Time: 2, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: `a "process":-1 in a detail`},
		{Index: 2, Time: 3, Type: history.OK, Process: -10, F: history.FAcquire, Key: "k"},
		{Index: 3, Time: 4, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "partition"},
		{Index: 4, Time: 5, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k"},
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	n, nem, warns, err := scanNemesis(path)
	if err != nil || n != 5 || len(nem) != 2 || nem[0].Index != 1 || nem[1].Index != 3 || len(warns) != 0 {
		t.Fatalf("scanNemesis = %d records, nemesis %v, warnings %v, %v; want 5, records 1 and 3", n, nem, warns, err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, `{"index":5,"time":6,"ty`...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rwarns, rerr := history.ReadFile(path)
	n, nem, warns, err = scanNemesis(path)
	if err != nil || rerr != nil || n != 5 || len(nem) != 2 || len(warns) != 1 || len(rwarns) != 1 || warns[0] != rwarns[0] {
		t.Fatalf("truncated: %d records, %d nemesis, warnings %v (Read's %v), %v", n, len(nem), warns, rwarns, err)
	}
}
