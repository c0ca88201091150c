package reports

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/resource"
)

const ms = historytest.MS

// pauseHistory is the catalogue's GC pause (row 4) by hand, and its
// resource log: p0 reads 0 and is paused past its lease, p1 takes the
// lock, reads 0 and writes 1, p0 then writes 1 too (a lost update); p2
// times out once and continues as p3.
func pauseHistory() (history.History, []resource.Write) {
	const k, pause = "lockstorm", "client-pause"
	ttl, detail := historytest.TTL(300), historytest.Detail("client-pause clients=c1 duration=600ms")
	h := historytest.New().
		Add(1, history.Invoke, 0, history.FAcquire, k, "", ttl).
		Add(3, history.OK, 0, history.FAcquire, k, "tok-a", ttl, historytest.Validity(295)).
		Op(4, 5, history.OK, 0, history.FRead, k, "").
		Start(10, history.OK, pause, detail).
		Add(20, history.Invoke, 1, history.FAcquire, k, "", ttl).
		Add(320, history.OK, 1, history.FAcquire, k, "tok-b", ttl, historytest.Validity(610)).
		Op(321, 322, history.OK, 1, history.FRead, k, "").
		Add(30, history.Invoke, 2, history.FAcquire, k, "", ttl).
		Op(400, 401, history.OK, 1, history.FWrite, k, "", historytest.Value(1)).
		Op(402, 403, history.OK, 1, history.FRelease, k, "tok-b").
		Add(630, history.Info, 2, history.FAcquire, k, "", historytest.Err("context deadline exceeded")).
		Stop(611, pause).
		Op(613, 614, history.OK, 0, history.FWrite, k, "", historytest.Value(1)).
		Add(615, history.Invoke, 0, history.FRelease, k, "tok-a").
		Add(616, history.Fail, 0, history.FRelease, k, "tok-a", historytest.Err("lockimpl: lock not held")).
		Add(640, history.Invoke, 3, history.FAcquire, k, "", ttl).
		Add(642, history.OK, 3, history.FAcquire, k, "tok-c", ttl, historytest.Validity(935)).
		Op(650, 651, history.OK, 3, history.FRelease, k, "tok-c").
		Sorted()
	writes := []resource.Write{
		{Time: 400*ms + 500_000, Key: "lockstorm", Value: 1, Accepted: true},
		{Time: 613*ms + 500_000, Key: "lockstorm", Value: 1, Accepted: true},
	}
	return h, writes
}

// historyOf is res's history read into memory (a test's history is
// short, or held in memory already).
func historyOf(res *analysis.Result) history.History {
	h, err := history.ReadAll(res.History)
	if err != nil {
		panic(err)
	}
	return h
}

// pauseResult is pauseHistory checked by the standard checkers, as the
// harness would (final counter value 1 after two acknowledged increments).
func pauseResult(dir string) *analysis.Result {
	h, writes := pauseHistory()
	cfg := config.Config{Name: "hand-built-pause", Lock: "single", Workload: "counter", Nemesis: []string{"client-pause"},
		Nodes: 1, Clients: 3, TTL: 300 * time.Millisecond, TimeLimit: time.Second, Seed: 42, Persistence: "none",
		FaultInterval: 3 * time.Second}
	final := map[string]int64{"lockstorm": 1}
	res := &analysis.Result{Dir: dir, Config: cfg, History: history.Slice(h), Writes: writes, Final: final}
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	return res
}

// bigHistory is a generated lock run (historytest.Gen) of at least n
// client operations over clients slots on one lock, with faults.
func bigHistory(n, clients int, seed uint64) history.History {
	return historytest.NewGen(seed, clients, 1).Run(2*n+n/4, true)
}

// bigResult wraps bigHistory in a result with a plain valid verdict (the
// benchmark measures the report, not the checkers).
func bigResult(dir string, n int) *analysis.Result {
	h := bigHistory(n, 8, 1)
	cfg := config.Config{Name: "synthetic", Lock: "single", Workload: "counter", Clients: 8, Nodes: 1, TTL: 300 * time.Millisecond, Seed: 1}
	return &analysis.Result{Dir: dir, Config: cfg, History: history.Slice(h), Verdict: checker.Result{Name: "lockstorm", Valid: checker.Valid,
		Results: []checker.Result{{Name: "lock", Valid: checker.Valid}, {Name: "resource", Valid: checker.Valid}}}}
}

// endTime is the time of h's last record (0 for an empty history).
func endTime(h history.History) int64 {
	var end int64
	for i := range h {
		end = max(end, h[i].Time)
	}
	return end
}

// mustWrite writes res's report, failing t on an error.
func mustWrite(t testing.TB, res *analysis.Result) {
	t.Helper()
	noErr(t, Write(res))
}

// noErr fails t on a non-nil err.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// must returns a function that fails t on a non-nil error, else returns
// the value: must[[]byte](t)(f()).
func must[T any](t testing.TB) func(T, error) T {
	t.Helper()
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
