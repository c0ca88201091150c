package coverage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// heldThenPaused records slot's process p acquiring at 0-10 ms and a
// pause of c1 from 20 to 50 ms; it returns the acquire's ok.
func heldThenPaused(b *historytest.Builder, p int, slot string) int64 {
	ok := b.Add(0, history.Invoke, p, history.FAcquire, "k", "", historytest.Client(slot)).
		Add(10, history.OK, p, history.FAcquire, "k", slot, historytest.Client(slot)).Last()
	b.Start(20, history.OK, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
	return ok
}

// grantThenPause computes the coverage of a history in which c1 holds
// a lease granted at 10 ms (the first record) and a pause of c1 from 20
// to 50 ms starts with a completion of startType.
func grantThenPause(t *testing.T, startType history.Type) *Report {
	b := historytest.New()
	b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1"))
	b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1"))
	b.Start(20, startType, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
	return cover(t, b.History(), in)
}

var in = Input{Clients: []string{"c1", "c2"}, Nodes: []string{"n1", "n2", "n3"},
	Requested: []string{"client-pause"}, Planned: map[string]int{"client-pause": 1}}

func TestHolderAtStart(t *testing.T) {
	b := historytest.New()
	ok := heldThenPaused(b, 1, "c1")
	b.Add(60, history.Invoke, 1, history.FRelease, "k", "", historytest.Client("c1"))
	b.Add(61, history.OK, 1, history.FRelease, "k", "", historytest.Client("c1"))
	r := cover(t, b.History(), in)
	w := r.Windows[0]
	if w.Holder == nil || w.Holder.When != AtStart || w.Holder.Op != ok || w.Holder.Client != "c1" {
		t.Fatalf("holder = %+v, want at start, op %d", w.Holder, ok)
	}
	if w.Waiter != nil || w.Write != nil {
		t.Fatalf("waiter %+v write %+v, want none", w.Waiter, w.Write)
	}
	c := r.Kind("client-pause")
	if c.Planned != 1 || c.Applied != 1 || c.TouchedHolder != 1 || c.HolderAtStart != 1 || c.Exercised != 1 || c.TouchedWaiter != 0 {
		t.Fatalf("counts = %+v", c)
	}
	if s := r.Shortfall(1); len(s) != 0 {
		t.Fatalf("shortfall = %v, want none", s)
	}
}

func TestHolderDuringWaiterWrite(t *testing.T) {
	b := historytest.New()
	b.Start(5, history.OK, "client-pause", historytest.Clients("c1"))
	wInv := b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1")).Last() // waiter during
	ok := b.Add(20, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1")).Last()     // holder during
	wr := b.Add(25, history.Invoke, 1, history.FWrite, "k", "", historytest.Client("c1")).Last()     // write during
	b.Add(30, history.OK, 1, history.FWrite, "k", "", historytest.Client("c1"))
	b.Stop(40, "client-pause")
	w := cover(t, b.History(), in).Windows[0]
	for name, got := range map[string]*Touch{"holder": w.Holder, "waiter": w.Waiter, "write": w.Write} {
		if got == nil || got.When != During {
			t.Fatalf("%s = %+v, want during", name, got)
		}
	}
	if w.Holder.Op != ok || w.Waiter.Op != wInv || w.Write.Op != wr {
		t.Fatalf("ops holder %d waiter %d write %d, want %d %d %d", w.Holder.Op, w.Waiter.Op, w.Write.Op, ok, wInv, wr)
	}
}

func TestHolderEndsAtReleaseLostOrValidity(t *testing.T) {
	cases := map[string]struct {
		validityMS int64
		end        func(b *historytest.Builder)
	}{
		"release": {0, func(b *historytest.Builder) {
			b.Add(15, history.Invoke, 1, history.FRelease, "k", "", historytest.Client("c1"))
		}},
		"lost": {0, func(b *historytest.Builder) {
			b.Add(15, history.Info, 1, history.FLost, "k", "c1", historytest.Client("c1"))
		}},
		"validity": {18, func(*historytest.Builder) {}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := historytest.New()
			b.Add(0, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1"))
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1"), historytest.Validity(tc.validityMS))
			tc.end(b)
			b.Start(20, history.OK, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
			r := cover(t, b.History(), in)
			if r.Windows[0].Holder != nil {
				t.Fatalf("holder = %+v: the lease ended before the fault", r.Windows[0].Holder)
			}
			if s := r.Shortfall(1); len(s) != 1 || !strings.Contains(s[0], "the one client-pause fault never touched a lock holder or waiter (need 1; --min-coverage 0 turns this off)") {
				t.Fatalf("shortfall = %q", s)
			}
		})
	}
}

func TestOtherClientNotHit(t *testing.T) {
	b := historytest.New()
	heldThenPaused(b, 2, "c2")
	w := cover(t, b.History(), in).Windows[0]
	if w.Holder != nil || w.Waiter != nil {
		t.Fatalf("a pause of c1 touched c2: %+v %+v", w.Holder, w.Waiter)
	}
}

func TestNodeFaultLeaseNodes(t *testing.T) {
	b := historytest.New()
	b.Add(0, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1"))
	b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1"), historytest.Nodes("n1", "n2"))
	b.Start(20, history.OK, "crash", historytest.Nodes("n3")).Stop(30, "crash") // not in the lease
	b.Start(40, history.OK, "crash", historytest.Nodes("n2")).Stop(50, "crash") // in the lease
	r := cover(t, b.History(), Input{Clients: in.Clients, Nodes: in.Nodes, Requested: []string{"crash"}})
	if r.Windows[0].Holder != nil {
		t.Fatalf("crash of n3 touched a lease on n1,n2: %+v", r.Windows[0].Holder)
	}
	if h := r.Windows[1].Holder; h == nil || h.When != AtStart {
		t.Fatalf("crash of n2 did not touch the lease on n1,n2: %+v", h)
	}
	if !r.Windows[0].NodesOnly || len(r.Windows[0].Clients) != 2 {
		t.Fatalf("node fault hits %v (nodes only %v), want every client", r.Windows[0].Clients, r.Windows[0].NodesOnly)
	}
	// A lease without recorded nodes involves every node.
	b2 := historytest.New()
	b2.Add(10, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c2"))
	b2.Add(10, history.OK, 1, history.FAcquire, "k", "c2", historytest.Client("c2"))
	b2.Start(20, history.OK, "crash", historytest.Nodes("n3")).Stop(30, "crash")
	if h := cover(t, b2.History(), in).Windows[0].Holder; h == nil {
		t.Fatal("a lease with no recorded nodes was not touched by a node fault")
	}
}

func TestInfoStartNotApplied(t *testing.T) {
	r := grantThenPause(t, history.Info)
	if r.Windows[0].Applied {
		t.Fatal("a start completed info counted as applied")
	}
	if c := r.Kind("client-pause"); c.Applied != 0 || c.TouchedHolder != 0 {
		t.Fatalf("counts = %+v, want nothing applied or touched", c)
	}
	want := "client-pause was requested but no client-pause fault was applied (planned 1)"
	if s := r.Shortfall(-1); len(s) != 1 || s[0] != want {
		t.Fatalf("shortfall(-1) = %q, want %q", s, want)
	}
}

func TestUnhealedWindow(t *testing.T) {
	b := historytest.New()
	b.Start(20, history.OK, "client-pause", historytest.Clients("c1"))
	b.Add(100, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1"))
	b.Add(110, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1"))
	r := cover(t, b.History(), in)
	w := r.Windows[0]
	if !w.Unhealed || w.End != 110e6 || w.StopOp != -1 {
		t.Fatalf("window = %+v, want unhealed to the end", w)
	}
	if w.Holder == nil || w.Holder.When != During || w.Waiter == nil {
		t.Fatalf("holder %+v waiter %+v, want both during", w.Holder, w.Waiter)
	}
}

func TestOldHistory(t *testing.T) {
	b := historytest.New()
	heldThenPaused(b, 1, "")
	r := cover(t, b.History(), in)
	if r.Unjudged == "" || r.Windows[0].Holder != nil {
		t.Fatalf("unjudged = %q holder = %+v", r.Unjudged, r.Windows[0].Holder)
	}
	s := r.Shortfall(1)
	if len(s) != 1 || !strings.HasPrefix(s[0], "coverage cannot be judged") {
		t.Fatalf("shortfall = %q", s)
	}
	if s := r.Shortfall(-1); len(s) != 0 {
		t.Fatalf("shortfall(-1) = %q, want none", s)
	}
}

func TestShortfallLines(t *testing.T) {
	b := historytest.New()
	for i := int64(0); i < 3; i++ {
		b.Start(100*i, history.OK, "client-pause", historytest.Clients("c1")).Stop(100*i+50, "client-pause")
	}
	r := cover(t, b.History(), Input{Clients: in.Clients, Requested: []string{"client-pause", "client-crash"},
		Planned: map[string]int{"client-pause": 3}})
	got := r.Judge(1)
	want := []string{
		"none of 3 client-pause faults touched a lock holder or waiter (need 1; --min-coverage 0 turns this off)",
		"client-crash was requested but no client-crash fault was applied (planned 0)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("shortfall =\n%q\nwant\n%q", got, want)
	}
	if r.Min != 1 || len(r.Gaps) != 2 {
		t.Fatalf("Judge left min %d gaps %v", r.Min, r.Gaps)
	}
	if s := r.Shortfall(0); len(s) != 1 {
		t.Fatalf("shortfall(0) = %q, want only the unapplied kind", s)
	}
	if s := cover(t, b.History(), Input{}).Shortfall(1); len(s) != 0 {
		t.Fatalf("no kind requested, shortfall = %q", s)
	}
}

func TestJSONShape(t *testing.T) {
	r := grantThenPause(t, history.OK)
	r.Judge(1)
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requested":["client-pause"]`, `"min":1`, `"kinds":[{"kind":"client-pause","planned":1,"applied":1,"touched_holder":1,"holder_at_start":1,"touched_waiter":0,"touched_write":0,"exercised":1}]`, `"holder":{"when":"start","client":"c1","op":1}`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON %s lacks %s", js, want)
		}
	}
}

// An extend moves the lease's end: the holder still holds past the
// acquire's validity. A watchdog's renewal is recorded under a process of
// its own (the watchdog runs beside the holder): its extend ok still runs
// the holder's lease, matched by token, so a fault aimed right after it
// touches a holder.
func TestExtendKeepsHolder(t *testing.T) {
	for _, tc := range []struct {
		name, token, fault string
		p                  int
		mods               []historytest.Mod
	}{
		{"extend", "", "client-pause", 1, nil},
		{"watchdog's extend", "c1", "partition", 7, []historytest.Mod{historytest.Detail("watchdog")}},
	} {
		b := historytest.New()
		b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c1"))
		b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", historytest.Client("c1"), historytest.Validity(18))
		b.Add(15, history.Invoke, tc.p, history.FExtend, "k", tc.token, append(tc.mods, historytest.Client("c1"))...)
		b.Add(16, history.OK, tc.p, history.FExtend, "k", tc.token, append(tc.mods, historytest.Client("c1"), historytest.Validity(100))...)
		b.Start(20, history.OK, tc.fault, historytest.Clients("c1")).Stop(50, tc.fault)
		if h := cover(t, b.History(), in).Windows[0].Holder; h == nil || h.When != AtStart {
			t.Fatalf("holder = %+v, want at start (the %s ran the lease to 100 ms)", h, tc.name)
		}
	}
}
