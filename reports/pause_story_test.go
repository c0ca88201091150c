package reports

import (
	"context"
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
	b := historytest.New()
	k := "lockstorm"
	b.Append(history.Op{Time: 100 * ms, Type: history.Invoke, Process: 0, Client: "c1", F: history.FAcquire, Key: k, TTL: 450 * ms})
	b.Append(history.Op{Time: 101 * ms, Type: history.OK, Process: 0, Client: "c1", F: history.FAcquire, Key: k, Token: "a", Fence: 55, TTL: 450 * ms, Validity: 1450 * ms})
	b.Append(history.Op{Time: 1000 * ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Clients: []string{"c1"}})
	b.Append(history.Op{Time: 1000 * ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Clients: []string{"c1"}})
	b.Append(history.Op{Time: 1100 * ms, Type: history.Invoke, Process: 0, Client: "c1", F: history.FWrite, Key: k, Value: 1, Fence: 55})
	b.Append(history.Op{Time: 1200 * ms, Type: history.Invoke, Process: 1, Client: "c2", F: history.FAcquire, Key: k, TTL: 450 * ms})
	b.Append(history.Op{Time: 1520 * ms, Type: history.OK, Process: 1, Client: "c2", F: history.FAcquire, Key: k, Token: "b", Fence: 56, TTL: 450 * ms, Validity: 1900 * ms})
	b.Append(history.Op{Time: 1530 * ms, Type: history.Invoke, Process: 1, Client: "c2", F: history.FWrite, Key: k, Value: 1, Fence: 56})
	b.Append(history.Op{Time: 1531 * ms, Type: history.OK, Process: 1, Client: "c2", F: history.FWrite, Key: k, Value: 1, Fence: 56})
	b.Append(history.Op{Time: 1540 * ms, Type: history.Invoke, Process: 1, Client: "c2", F: history.FRelease, Key: k, Token: "b"})
	b.Append(history.Op{Time: 1541 * ms, Type: history.OK, Process: 1, Client: "c2", F: history.FRelease, Key: k, Token: "b"})
	b.Append(history.Op{Time: 2010 * ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause", Clients: []string{"c1"}})
	b.Append(history.Op{Time: 2010 * ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause", Clients: []string{"c1"}})
	b.Append(history.Op{Time: 2012 * ms, Type: history.Fail, Process: 0, Client: "c1", F: history.FWrite, Key: k, Value: 1, Fence: 55, Error: "stale"})
	b.Append(history.Op{Time: 2013 * ms, Type: history.Invoke, Process: 0, Client: "c1", F: history.FRelease, Key: k, Token: "a"})
	b.Append(history.Op{Time: 2014 * ms, Type: history.Fail, Process: 0, Client: "c1", F: history.FRelease, Key: k, Token: "a", Error: "not held"})
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
	var noWrite history.History
	for _, r := range h {
		if !(r.Process == 0 && r.F == history.FWrite) {
			noWrite = append(noWrite, r)
		}
	}
	noWrite = historytest.Sorted(noWrite)
	got = pauseStories(historyDetail(noWrite, nil, nil, 2))
	if len(got) != 1 || !strings.HasSuffix(got[0], "→ no write of c1's lease reached the resource after the pause began") {
		t.Errorf("no write: %q", got)
	}
	var idle history.History
	for _, r := range h {
		if r.Process != 0 {
			idle = append(idle, r)
		}
	}
	idle = historytest.Sorted(idle)
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
