package reports

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/resource"
)

// The hand-built GC pause (pauseHistory): c1 holds the lock, is paused,
// its lease ends, c2 takes the lock and writes 1, and c1's delayed write
// of 1 arrives after the pause and is accepted: a lost update, which the
// resource checker names.
func TestPauseStoryLostUpdate(t *testing.T) {
	res := pauseResult(t.TempDir())
	got := pauseStories(historyDetail(historyOf(res), res.Writes, lostPairs(historyOf(res), res.Verdict, nil), 3))
	want := "c1 paused at 0.01 s (until 0.61 s) → its lease ended 0.29 s → c2 acquired 0.32 s → c1's write arrived 0.61 s (sent 0.61 s): accepted (lost update)"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("stories:\n%q\nwant\n%q", got, want)
	}
}

// fencedPauseHistory is the same story with fencing tokens and a fencing
// resource: c1 (fence 55) sends its write during the pause; it reaches the
// resource at 2.01 s, after c2 (fence 56) wrote, and is rejected.
func fencedPauseHistory() (history.History, []resource.Write) {
	const k, pause = "lockstorm", "client-pause"
	c1, c2, ttl, paused := historytest.Client("c1"), historytest.Client("c2"), historytest.TTL(450), historytest.Clients("c1")
	v1, f55, f56 := historytest.Value(1), historytest.Fence(55), historytest.Fence(56)
	b := historytest.New().
		Add(100, history.Invoke, 0, history.FAcquire, k, "", c1, ttl).
		Add(101, history.OK, 0, history.FAcquire, k, "a", c1, f55, ttl, historytest.Validity(1450)).
		Nemesis(1000, history.Invoke, history.FStart, pause, paused).Nemesis(1000, history.OK, history.FStart, pause, paused).
		Add(1100, history.Invoke, 0, history.FWrite, k, "", c1, v1, f55).
		Add(1200, history.Invoke, 1, history.FAcquire, k, "", c2, ttl).
		Add(1520, history.OK, 1, history.FAcquire, k, "b", c2, f56, ttl, historytest.Validity(1900)).
		Op(1530, 1531, history.OK, 1, history.FWrite, k, "", c2, v1, f56).
		Op(1540, 1541, history.OK, 1, history.FRelease, k, "b", c2).
		Nemesis(2010, history.Invoke, history.FStop, pause, paused).Nemesis(2010, history.OK, history.FStop, pause, paused).
		Add(2012, history.Fail, 0, history.FWrite, k, "", c1, v1, f55, historytest.Err("stale")).
		Add(2013, history.Invoke, 0, history.FRelease, k, "a", c1).
		Add(2014, history.Fail, 0, history.FRelease, k, "a", c1, historytest.Err("not held"))
	writes := []resource.Write{
		{Time: 1530*ms + 500_000, Key: k, Value: 1, Fence: 56, Accepted: true},
		{Time: 2011 * ms, Key: k, Value: 1, Fence: 55, Stale: true},
	}
	return b.History(), writes
}

// With fencing, the story ends in the rejection and names both tokens;
// the holders chart draws the write at its arrival (2.011 s, after c1's
// validity ended at 1.45 s), not at its send (1.10 s, inside the valid
// lease).
func TestPauseStoryRejected(t *testing.T) {
	h, writes := fencedPauseHistory()
	got := pauseStories(historyDetail(h, writes, nil, 2))
	want := "c1 paused at 1.00 s (until 2.01 s) → its lease ended 1.45 s → c2 acquired 1.52 s (fence 56) → c1's write arrived 2.01 s (sent 1.10 s): rejected (fence 55 < 56)"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("stories:\n%q\nwant\n%q", got, want)
	}
	for _, a := range arrivals(h, clientOps(h), writes) {
		if a.Proc == 0 && (!a.Known || a.At() != 2011*ms || a.Accepted || a.Highest != 56) {
			t.Errorf("c1's write: %+v, want arrival 2.011 s, rejected below 56", a)
		}
	}
}

// What the records do not show is said to be unknown, never made up:
// without the resource's log the arrival is unknown; with no write after
// the pause there is none; a pause of a client holding nothing says so.
func TestPauseStoryUnknowns(t *testing.T) {
	h, _ := fencedPauseHistory()
	got := pauseStories(historyDetail(h, nil, nil, 2))
	if len(got) != 1 || !strings.HasSuffix(got[0], "c1's write was sent 1.10 s, its arrival unknown (not in the resource's log): rejected") {
		t.Errorf("without a log: %q", got)
	}
	without := func(drop func(r history.Op) bool) history.History {
		return historytest.Sorted(slices.DeleteFunc(slices.Clone(h), drop))
	}
	noWrite := without(func(r history.Op) bool { return r.Process == 0 && r.F == history.FWrite })
	got = pauseStories(historyDetail(noWrite, nil, nil, 2))
	if len(got) != 1 || !strings.HasSuffix(got[0], "→ no write of c1's lease reached the resource after the pause began") {
		t.Errorf("no write: %q", got)
	}
	idle := without(func(r history.Op) bool { return r.Process == 0 })
	got = pauseStories(historyDetail(idle, nil, nil, 2))
	if len(got) != 1 || got[0] != "c1 paused at 1.00 s (until 2.01 s) while holding no lock: no lease to outlive" {
		t.Errorf("idle client: %q", got)
	}
}

// The run report shows the sentences in their own section, above the
// holders chart.
func TestPauseStoryInReport(t *testing.T) {
	dir := t.TempDir()
	h, writes := fencedPauseHistory()
	res := &analysis.Result{Dir: dir, Config: config.Config{Name: "fenced-pause", Lock: "fenced", Workload: "counter", Clients: 2, Fencing: true, Seed: 1},
		History: history.Slice(h), Writes: writes, Final: map[string]int64{"lockstorm": 1}}
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	mustWrite(t, res)
	page := storetest.Read(t, dir, store.IndexFile)
	story := strings.Index(page, `id="pause-stories"`)
	holders := strings.Index(page, `<figure id="holders.png"`)
	if story < 0 || holders < story || !strings.Contains(page, "rejected (fence 55 &lt; 56)") {
		t.Errorf("pause story section at %d, holders chart at %d", story, holders)
	}
}

// A run with many pauses lists the first maxPauseStories and counts the
// rest.
func TestPauseStoriesCapped(t *testing.T) {
	b := historytest.New()
	for i := range maxPauseStories + 5 {
		at := int64(i) * 100 * ms
		for _, f := range []string{history.FStart, history.FStop} {
			b.Append(history.Op{Time: at, Type: history.Info, Process: history.NemesisProcess, F: f, Fault: "client-pause", Clients: []string{"c1"}})
			at += 10 * ms
		}
	}
	b.Append(history.Op{Time: 5000 * ms, Type: history.Invoke, Process: 0, Client: "c1", F: history.FAcquire, Key: "k"})
	got := runPauseStories(historyDetail(b.History(), nil, nil, 1))
	if len(got) != maxPauseStories+1 || got[maxPauseStories] != "… and 5 more client pauses, not told here (see the holders chart)" {
		t.Errorf("%d lines, last %q", len(got), got[len(got)-1])
	}
}
