package catalog

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
)

// expectRun is a short run's history (a partition from 100 to 500 ms, an
// acquire ok inside it, a lost lease), its resource log (one stale write
// rejected) and a verdict whose fatal anomaly is complete at 300 ms, held
// in memory and left in its run folder's files as a stored or long run's.
func expectRun(t *testing.T) (mem, file *analysis.Result) {
	ms := int64(time.Millisecond)
	nem := func(i, at int64, ty history.Type, f string) history.Op {
		return history.Op{Index: i, Time: at * ms, Type: ty, Process: history.NemesisProcess, F: f, Fault: nemesis.KindPartition}
	}
	op := func(i, at int64, ty history.Type, f string) history.Op {
		return history.Op{Index: i, Time: at * ms, Type: ty, Process: 0, F: f, Key: "k"}
	}
	h := history.History{nem(0, 100, history.Invoke, history.FStart), nem(1, 110, history.OK, history.FStart),
		op(2, 150, history.Invoke, history.FAcquire), op(3, 200, history.OK, history.FAcquire),
		op(4, 300, history.OK, history.FLost), nem(5, 500, history.Invoke, history.FStop), nem(6, 510, history.OK, history.FStop)}
	ws := []resource.Write{{Time: 250 * ms, Key: "k", Value: 1, Fence: 1, Stale: true}}
	v := checker.Result{Valid: checker.Invalid, Results: []checker.Result{{Name: "lock", Valid: checker.Invalid,
		Anomalies: []checker.Anomaly{{Kind: "x", Fatal: true, Ops: []int64{2, 4}}}}}}
	dir := t.TempDir()
	if err := history.WriteFile(filepath.Join(dir, store.HistoryFile), h); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteJSONL(filepath.Join(dir, store.WritesFile), ws); err != nil {
		t.Fatal(err)
	}
	mem = &analysis.Result{History: history.Slice(h), Writes: ws, Verdict: v}
	file = &analysis.Result{Dir: dir, History: history.File(filepath.Join(dir, store.HistoryFile)), Records: len(h), Verdict: v}
	return mem, file
}

// The expectations and the detection time read a run through its
// history.Source: a run left in its files (Writes nil) is judged as the
// same run held in memory, not as an empty one.
func TestExpectationsReadFileBackedRun(t *testing.T) {
	mem, file := expectRun(t)
	for _, e := range []Expectation{records(history.FLost, history.OK, 1, "lost-lease records"), staleRejected(),
		acquiresDuring(nemesis.KindPartition, true, 0), acquiresDuring(nemesis.KindPartition, false, 0)} {
		mok, mseen := e.Check(mem)
		fok, fseen := e.Check(file)
		if mok != fok || mseen != fseen {
			t.Errorf("%s: in memory %v %q, from the files %v %q", e.Desc, mok, mseen, fok, fseen)
		}
		if want := e.Desc != "no acquire succeeds during partition"; fok != want {
			t.Errorf("%s: from the files %v (%s), want %v", e.Desc, fok, fseen, want)
		}
	}
	if m, f := detection(mem), detection(file); m != f || f != 200*time.Millisecond {
		t.Errorf("detection: in memory %v, from the files %v; want 200ms after the first fault", m, f)
	}
}
