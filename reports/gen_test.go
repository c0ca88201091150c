package reports

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/resource"
)

const ms = historytest.MS

// pauseHistory is the GC-pause anomaly of the catalogue (row 4) written
// by hand: client 1 (process 0) takes the lock and reads 0, is paused past
// its lease, client 2 (process 1) takes the expired lock, reads 0 and
// writes 1, then client 1 wakes and writes 1 too: an update is lost. A
// third client (process 2) times out once (info) and continues as
// process 3. It returns the history and the resource's write log.
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

// pauseResult is pauseHistory checked by the standard checkers, as the
// harness would (final counter value 1 after two acknowledged increments).
func pauseResult(dir string) *analysis.Result {
	h, writes := pauseHistory()
	cfg := config.Config{Name: "hand-built-pause", Lock: "single", Workload: "counter", Nemesis: []string{"client-pause"},
		Nodes: 1, Clients: 3, TTL: 300 * time.Millisecond, TimeLimit: time.Second, Seed: 42, Persistence: "none",
		FaultInterval: 3 * time.Second}
	final := map[string]int64{"lockstorm": 1}
	res := &analysis.Result{Dir: dir, Config: cfg, History: h, Writes: writes, Final: final}
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	return res
}

// bigHistory synthesises a counter-like history of about n client
// operations over clients slots: rounds of acquire, read, write, release
// taking turns, some acquires failing, an occasional info that retires a
// process, and a fault window every few seconds.
func bigHistory(n, clients int, seed uint64) history.History {
	r := rand.New(rand.NewPCG(seed, 1))
	b := historytest.New()
	t := int64(0)
	proc := make([]int, clients)
	for i := range proc {
		proc[i] = i
	}
	next := clients
	fence := int64(0)
	value := int64(0)
	ops := 0
	faultOpen := false
	for ops < n {
		c := r.IntN(clients)
		p := proc[c]
		t += int64(r.IntN(2000)) * 1000
		if t/(3*int64(time.Second)) != (t-2*ms)/(3*int64(time.Second)) || r.IntN(400) == 0 {
			if faultOpen {
				b.Append(history.Op{Time: t, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStop, Fault: "partition"})
				b.Append(history.Op{Time: t + ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStop, Fault: "partition"})
			} else {
				b.Append(history.Op{Time: t, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "partition nodes=n1"})
				b.Append(history.Op{Time: t + ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "partition nodes=n1"})
			}
			faultOpen = !faultOpen
			t += ms
		}
		// one acquire attempt
		b.Append(history.Op{Time: t, Type: history.Invoke, Process: p, F: history.FAcquire, Key: "k", TTL: 300 * ms})
		t += int64(r.ExpFloat64() * float64(ms))
		ops++
		switch x := r.IntN(100); {
		case x < 25:
			b.Append(history.Op{Time: t, Type: history.Fail, Process: p, F: history.FAcquire, Key: "k", Error: "not obtained"})
			continue
		case x < 26:
			b.Append(history.Op{Time: t, Type: history.Info, Process: p, F: history.FAcquire, Key: "k", Error: "timeout"})
			proc[c] = next
			next++
			continue
		}
		fence++
		tok := "t" + strconv.FormatInt(fence, 10)
		b.Append(history.Op{Time: t, Type: history.OK, Process: p, F: history.FAcquire, Key: "k", Token: tok, Fence: fence, TTL: 300 * ms, Validity: t + 290*ms})
		for _, f := range []string{history.FRead, history.FWrite} {
			b.Append(history.Op{Time: t + 100_000, Type: history.Invoke, Process: p, F: f, Key: "k", Fence: fence, Value: value + 1})
			t += 200_000 + int64(r.IntN(500))*1000
			b.Append(history.Op{Time: t, Type: history.OK, Process: p, F: f, Key: "k", Fence: fence, Value: value + 1})
			ops++
		}
		value++
		b.Append(history.Op{Time: t + 10_000, Type: history.Invoke, Process: p, F: history.FRelease, Key: "k", Token: tok})
		t += 300_000
		b.Append(history.Op{Time: t, Type: history.OK, Process: p, F: history.FRelease, Key: "k", Token: tok})
		ops++
	}
	return b.History()
}

// bigResult wraps bigHistory in a result with a plain valid verdict (the
// benchmark measures the report, not the checkers).
func bigResult(dir string, n int) *analysis.Result {
	h := bigHistory(n, 8, 1)
	cfg := config.Config{Name: "synthetic", Lock: "single", Workload: "counter", Clients: 8, Nodes: 1, TTL: 300 * time.Millisecond, Seed: 1}
	return &analysis.Result{Dir: dir, Config: cfg, History: h, Verdict: checker.Result{Name: "lockstorm", Valid: checker.Valid,
		Results: []checker.Result{{Name: "lock", Valid: checker.Valid}, {Name: "resource", Valid: checker.Valid}}}}
}
