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
	"github.com/lockstorm/lockstorm/resource"
)

// hb builds a history by hand: each call appends one record with the next
// index.
type hb struct{ h history.History }

func (b *hb) add(op history.Op) int64 {
	op.Index = int64(len(b.h))
	b.h = append(b.h, op)
	return op.Index
}

const ms = int64(time.Millisecond)

// pauseHistory is the GC-pause anomaly of the catalogue (row 4) written
// by hand: client 1 (process 0) takes the lock and reads 0, is paused past
// its lease, client 2 (process 1) takes the expired lock, reads 0 and
// writes 1, then client 1 wakes and writes 1 too: an update is lost. A
// third client (process 2) times out once (info) and continues as
// process 3. It returns the history and the resource's write log.
func pauseHistory() (history.History, []resource.Write) {
	var b hb
	ttl := 300 * ms
	b.add(history.Op{Time: 1 * ms, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "lockstorm", TTL: ttl})
	b.add(history.Op{Time: 3 * ms, Type: history.OK, Process: 0, F: history.FAcquire, Key: "lockstorm", Token: "tok-a", TTL: ttl, Validity: 295 * ms})
	b.add(history.Op{Time: 4 * ms, Type: history.Invoke, Process: 0, F: history.FRead, Key: "lockstorm"})
	b.add(history.Op{Time: 5 * ms, Type: history.OK, Process: 0, F: history.FRead, Key: "lockstorm", Value: 0})
	b.add(history.Op{Time: 10 * ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Detail: "client-pause clients=c1 duration=600ms"})
	b.add(history.Op{Time: 11 * ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Detail: "client-pause clients=c1 duration=600ms"})
	b.add(history.Op{Time: 20 * ms, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "lockstorm", TTL: ttl})
	b.add(history.Op{Time: 320 * ms, Type: history.OK, Process: 1, F: history.FAcquire, Key: "lockstorm", Token: "tok-b", TTL: ttl, Validity: 610 * ms})
	b.add(history.Op{Time: 321 * ms, Type: history.Invoke, Process: 1, F: history.FRead, Key: "lockstorm"})
	b.add(history.Op{Time: 322 * ms, Type: history.OK, Process: 1, F: history.FRead, Key: "lockstorm", Value: 0})
	b.add(history.Op{Time: 30 * ms, Type: history.Invoke, Process: 2, F: history.FAcquire, Key: "lockstorm", TTL: ttl})
	b.add(history.Op{Time: 400 * ms, Type: history.Invoke, Process: 1, F: history.FWrite, Key: "lockstorm", Value: 1})
	b.add(history.Op{Time: 401 * ms, Type: history.OK, Process: 1, F: history.FWrite, Key: "lockstorm", Value: 1})
	b.add(history.Op{Time: 402 * ms, Type: history.Invoke, Process: 1, F: history.FRelease, Key: "lockstorm", Token: "tok-b"})
	b.add(history.Op{Time: 403 * ms, Type: history.OK, Process: 1, F: history.FRelease, Key: "lockstorm", Token: "tok-b"})
	b.add(history.Op{Time: 630 * ms, Type: history.Info, Process: 2, F: history.FAcquire, Key: "lockstorm", Error: "context deadline exceeded"})
	b.add(history.Op{Time: 611 * ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause"})
	b.add(history.Op{Time: 612 * ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause"})
	b.add(history.Op{Time: 613 * ms, Type: history.Invoke, Process: 0, F: history.FWrite, Key: "lockstorm", Value: 1})
	b.add(history.Op{Time: 614 * ms, Type: history.OK, Process: 0, F: history.FWrite, Key: "lockstorm", Value: 1})
	b.add(history.Op{Time: 615 * ms, Type: history.Invoke, Process: 0, F: history.FRelease, Key: "lockstorm", Token: "tok-a"})
	b.add(history.Op{Time: 616 * ms, Type: history.Fail, Process: 0, F: history.FRelease, Key: "lockstorm", Token: "tok-a", Error: "lockimpl: lock not held"})
	b.add(history.Op{Time: 640 * ms, Type: history.Invoke, Process: 3, F: history.FAcquire, Key: "lockstorm", TTL: ttl})
	b.add(history.Op{Time: 642 * ms, Type: history.OK, Process: 3, F: history.FAcquire, Key: "lockstorm", Token: "tok-c", TTL: ttl, Validity: 935 * ms})
	b.add(history.Op{Time: 650 * ms, Type: history.Invoke, Process: 3, F: history.FRelease, Key: "lockstorm", Token: "tok-c"})
	b.add(history.Op{Time: 651 * ms, Type: history.OK, Process: 3, F: history.FRelease, Key: "lockstorm", Token: "tok-c"})
	// Records must be in time order for a real recorder; sort by time
	// keeping indices dense.
	sortByTime(b.h)
	writes := []resource.Write{
		{Time: 400*ms + 500_000, Key: "lockstorm", Value: 1, Accepted: true},
		{Time: 613*ms + 500_000, Key: "lockstorm", Value: 1, Accepted: true},
	}
	return b.h, writes
}

// sortByTime orders records by time (stable) and renumbers them.
func sortByTime(h history.History) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Time < h[j-1].Time; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
	for i := range h {
		h[i].Index = int64(i)
	}
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

// bigHistory synthesises a counter-like history of about n client
// operations over clients slots: rounds of acquire, read, write, release
// taking turns, some acquires failing, an occasional info that retires a
// process, and a fault window every few seconds.
func bigHistory(n, clients int, seed uint64) history.History {
	r := rand.New(rand.NewPCG(seed, 1))
	var b hb
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
				b.add(history.Op{Time: t, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStop, Fault: "partition"})
				b.add(history.Op{Time: t + ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStop, Fault: "partition"})
			} else {
				b.add(history.Op{Time: t, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "partition nodes=n1"})
				b.add(history.Op{Time: t + ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "partition nodes=n1"})
			}
			faultOpen = !faultOpen
			t += ms
		}
		// one acquire attempt
		b.add(history.Op{Time: t, Type: history.Invoke, Process: p, F: history.FAcquire, Key: "k", TTL: 300 * ms})
		t += int64(r.ExpFloat64() * float64(ms))
		ops++
		switch x := r.IntN(100); {
		case x < 25:
			b.add(history.Op{Time: t, Type: history.Fail, Process: p, F: history.FAcquire, Key: "k", Error: "not obtained"})
			continue
		case x < 26:
			b.add(history.Op{Time: t, Type: history.Info, Process: p, F: history.FAcquire, Key: "k", Error: "timeout"})
			proc[c] = next
			next++
			continue
		}
		fence++
		tok := "t" + strconv.FormatInt(fence, 10)
		b.add(history.Op{Time: t, Type: history.OK, Process: p, F: history.FAcquire, Key: "k", Token: tok, Fence: fence, TTL: 300 * ms, Validity: t + 290*ms})
		for _, f := range []string{history.FRead, history.FWrite} {
			b.add(history.Op{Time: t + 100_000, Type: history.Invoke, Process: p, F: f, Key: "k", Fence: fence, Value: value + 1})
			t += 200_000 + int64(r.IntN(500))*1000
			b.add(history.Op{Time: t, Type: history.OK, Process: p, F: f, Key: "k", Fence: fence, Value: value + 1})
			ops++
		}
		value++
		b.add(history.Op{Time: t + 10_000, Type: history.Invoke, Process: p, F: history.FRelease, Key: "k", Token: tok})
		t += 300_000
		b.add(history.Op{Time: t, Type: history.OK, Process: p, F: history.FRelease, Key: "k", Token: tok})
		ops++
	}
	return b.h
}

// bigResult wraps bigHistory in a result with a plain valid verdict (the
// benchmark measures the report, not the checkers).
func bigResult(dir string, n int) *analysis.Result {
	h := bigHistory(n, 8, 1)
	cfg := config.Config{Name: "synthetic", Lock: "single", Workload: "counter", Clients: 8, Nodes: 1, TTL: 300 * time.Millisecond, Seed: 1}
	return &analysis.Result{Dir: dir, Config: cfg, History: history.Slice(h), Verdict: checker.Result{Name: "lockstorm", Valid: checker.Valid,
		Results: []checker.Result{{Name: "lock", Valid: checker.Valid}, {Name: "resource", Valid: checker.Valid}}}}
}
