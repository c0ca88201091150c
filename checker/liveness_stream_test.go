package checker

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// streamLiveness runs the streamed liveness check (CheckSource's) over h,
// whose records are in time order.
func streamLiveness(l *Liveness, h history.History) Result {
	s := newLiveStream(l, newTokenCheck(newTokTable()))
	v := newValidator()
	for i := range h {
		v.add(i, &h[i])
		s.add(&h[i])
	}
	windows, _ := v.win.Finish(v.end)
	return s.result(windows)
}

// sameLiveness fails unless the streamed liveness check of h gives
// Check's verdict, anomalies (kinds, op indices, texts, in order) and
// details.
func sameLiveness(t *testing.T, name string, l *Liveness, h history.History) Result {
	t.Helper()
	want := l.wholeLiveness(h)
	got := streamLiveness(l, h)
	wj, _ := json.MarshalIndent(want, "", " ")
	gj, _ := json.MarshalIndent(got, "", " ")
	if string(wj) != string(gj) {
		t.Errorf("%s %+v: streamed liveness differs\nwhole:\n%s\nstreamed:\n%s", name, *l, wj, gj)
	}
	return want
}

func inTimeOrder(h history.History) bool {
	return slices.IsSortedFunc(h, func(a, b history.Op) int { return int(min(max(a.Time-b.Time, -1), 1)) })
}

// TestLivenessStreamEqualsCheck: on generated histories (valid, with a
// dead holder that never frees its key, with waits long enough to starve)
// and every time-ordered testdata history, under every option, the
// streamed liveness check gives Check's result exactly.
func TestLivenessStreamEqualsCheck(t *testing.T) {
	configs := []*Liveness{
		{},
		{RequireRecovery: true},
		{Fair: true, RequireFIFO: true},
		{Fair: true, FIFOMargin: 5 * time.Millisecond, MaxWait: 10 * time.Millisecond},
		{RequireRecovery: true, NeverFreedAfter: 200 * time.Millisecond, RetryInterval: 50 * time.Millisecond, MaxWait: time.Millisecond},
	}
	hs := map[string]history.History{}
	for _, seed := range []uint64{1, 2} {
		g := historytest.NewGen(seed, 8, 3)
		hs[fmt.Sprintf("seed %d", seed)] = g.Run(6000, seed == 1)
		// a holder dies holding lock0 (no TTL) and the others keep
		// failing until the end
		end := g.Recs[len(g.Recs)-1].Time
		for i := 0; i < 8; i++ {
			g.InjectOp(end+int64(i)*50*ms, history.FAcquire, history.Fail, "lock0", "", 0, 0)
		}
		hs[fmt.Sprintf("seed %d never freed", seed)] = g.History()
	}
	// fault actions as invoke and completion, acquires ok inside their
	// span, and a fault never healed
	g := historytest.NewGen(3, 8, 3)
	g.Run(6000, true)
	n := len(g.Recs)
	for _, r := range slices.Clone(g.Recs) {
		if r.IsNemesis() {
			c := r
			c.Time += 700 * us
			g.Rec(c)
			g.InjectOp(r.Time+100*us, history.FAcquire, history.OK, "lock2", "", 0, 0)
		}
	}
	for i := range g.Recs[:n] {
		if g.Recs[i].IsNemesis() {
			g.Recs[i].Type = history.Invoke
		}
	}
	last := g.Recs[len(g.Recs)-1].Time
	g.Rec(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "pause", Time: last - 300*ms})
	hs["paired faults, one unhealed"] = g.History()
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, f := range files {
		h, _, err := history.ReadFile(f)
		if err == nil && Validate(h) == nil {
			hs[f] = h
		}
	}
	for name, h := range hs {
		if !inTimeOrder(h) {
			continue
		}
		for _, l := range configs {
			r := sameLiveness(t, name, l, h)
			t.Logf("%s %+v: %v %v windows %d", name, *l, r.Valid, kindsOf(r), len(r.Details.(LivenessDetails).Windows))
		}
	}
}

// TestCheckSourceStrictLiveness: CheckSource with a liveness checker that
// requires FIFO, recovery and bounded waits gives Check's verdicts and
// anomalies (the streamed liveness inside the streamed composition).
func TestCheckSourceStrictLiveness(t *testing.T) {
	g := historytest.NewGen(7, 8, 3)
	g.Run(8000, true)
	end := g.Recs[len(g.Recs)-1].Time
	for i := 0; i < 6; i++ {
		g.InjectOp(end+int64(i)*80*ms, history.FAcquire, history.Fail, "lock1", "", 0, 0)
	}
	h := g.History()
	o := Options{Lock: NewLock(), Fencing: true, Liveness: &Liveness{Fair: true, RequireFIFO: true, MaxWait: 20 * time.Millisecond,
		RequireRecovery: true, NeverFreedAfter: 100 * time.Millisecond}}
	_, whole := checkBoth(t, "strict liveness", h, o)
	if whole.Valid != Invalid || streamed.Segments < 3 {
		t.Errorf("strict liveness: %v, streamed %+v", whole.Valid, streamed)
	}
	// an acquire whose completion names another key than its invoke,
	// overtaken on that key while it waited: the streamed FIFO judges it
	// again when it completes (fifoStream.moved)
	t0 := h[len(h)/2].Time
	a, b := g.NewProcess(), g.NewProcess()
	g.Rec(history.Op{Type: history.Invoke, Process: a, F: history.FAcquire, Key: "lockZ", TTL: g.TTL, Time: t0})
	g.Rec(history.Op{Type: history.Invoke, Process: b, F: history.FAcquire, Key: "lockW", TTL: g.TTL, Time: t0 + 2*ms})
	g.Rec(history.Op{Type: history.OK, Process: b, F: history.FAcquire, Key: "lockW", Token: "b", TTL: g.TTL, Time: t0 + 3*ms})
	g.Rec(history.Op{Type: history.OK, Process: a, F: history.FAcquire, Key: "lockW", Token: "a", TTL: g.TTL, Time: t0 + 4*ms})
	h = g.History()
	checkBoth(t, "strict liveness, key moved", h, o)
	path := filepath.Join(t.TempDir(), "moved.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	c := Standard(o)
	got, _, err := c.CheckSource(context.Background(), history.File(path))
	if err != nil {
		t.Fatal(err)
	}
	want := c.checkWhole(context.Background(), h)
	for i := range want.Results {
		if want.Results[i].Name == "liveness" {
			wj, _ := json.Marshal(want.Results[i].Details)
			gj, _ := json.Marshal(got.Results[i].Details)
			if string(wj) != string(gj) {
				t.Errorf("key moved: liveness details differ\nwhole    %s\nstreamed %s", wj, gj)
			}
		}
	}
}

// TestLatencies: the split sample gives percentiles' result, with
// latencies on both sides of 4.3 s.
func TestLatencies(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		var l latencies
		var all []int64
		for i := 0; i < n; i++ {
			v := r.Int64N(3e9)
			if r.IntN(4) == 0 {
				v = 4e9 + r.Int64N(6e9)
			}
			l.add(v)
			all = append(all, v)
		}
		if got, want := l.percentiles(), percentiles(all); got != want {
			t.Errorf("%d latencies: %+v, want %+v", n, got, want)
		}
	}
}
