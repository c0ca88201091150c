package coverage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// hb builds a history by hand; times are milliseconds.
type hb struct{ h history.History }

func (b *hb) add(o history.Op) int64 {
	o.Index = int64(len(b.h))
	o.Time *= 1e6
	o.Validity *= 1e6
	b.h = append(b.h, o)
	return o.Index
}

func (b *hb) client(ms int64, p int, slot string, t history.Type, f string) int64 {
	return b.add(history.Op{Time: ms, Process: p, Client: slot, Type: t, F: f, Key: "k"})
}

// acquired records an acquire ok of process p, and its invoke at the same
// time unless p's last record is one.
func (b *hb) acquired(ms int64, p int, slot string, nodes []string, validityMS int64) int64 {
	if !b.invoking(p) {
		b.client(ms, p, slot, history.Invoke, history.FAcquire)
	}
	return b.add(history.Op{Time: ms, Process: p, Client: slot, Type: history.OK, F: history.FAcquire, Key: "k", Token: slot, Nodes: nodes, Validity: validityMS})
}

// invoking reports whether process p's last record is an acquire invoke.
func (b *hb) invoking(p int) bool {
	for i := len(b.h) - 1; i >= 0; i-- {
		if o := b.h[i]; o.Process == p {
			return o.Type == history.Invoke && o.F == history.FAcquire
		}
	}
	return false
}

// fault records a start (invoke + completion of type startType) and, if
// stopMS >= 0, a stop pair.
func (b *hb) fault(kind string, ms int64, startType history.Type, clients, nodes []string) {
	b.add(history.Op{Time: ms, Process: history.NemesisProcess, Type: history.Invoke, F: history.FStart, Fault: kind, Clients: clients, Nodes: nodes})
	b.add(history.Op{Time: ms + 1, Process: history.NemesisProcess, Type: startType, F: history.FStart, Fault: kind, Clients: clients, Nodes: nodes})
}

func (b *hb) stop(kind string, ms int64) {
	b.add(history.Op{Time: ms, Process: history.NemesisProcess, Type: history.Invoke, F: history.FStop, Fault: kind})
	b.add(history.Op{Time: ms + 1, Process: history.NemesisProcess, Type: history.OK, F: history.FStop, Fault: kind})
}

// heldThenPaused records slot's process p acquiring at 0-10 ms and a
// pause of c1 from 20 to 50 ms; it returns the acquire's ok.
func (b *hb) heldThenPaused(p int, slot string) int64 {
	b.client(0, p, slot, history.Invoke, history.FAcquire)
	ok := b.acquired(10, p, slot, nil, 0)
	b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
	b.stop("client-pause", 50)
	return ok
}

// grantThenPause computes the coverage of a history in which c1 holds
// a lease granted at 10 ms (the first record) and a pause of c1 from 20
// to 50 ms starts with a completion of startType.
func grantThenPause(t *testing.T, startType history.Type) *Report {
	var b hb
	b.acquired(10, 1, "c1", nil, 0)
	b.fault("client-pause", 20, startType, []string{"c1"}, nil)
	b.stop("client-pause", 50)
	return cover(t, b.h, in)
}

var in = Input{Clients: []string{"c1", "c2"}, Nodes: []string{"n1", "n2", "n3"},
	Requested: []string{"client-pause"}, Planned: map[string]int{"client-pause": 1}}

func TestHolderAtStart(t *testing.T) {
	var b hb
	ok := b.heldThenPaused(1, "c1")
	b.client(60, 1, "c1", history.Invoke, history.FRelease)
	b.client(61, 1, "c1", history.OK, history.FRelease)
	r := cover(t, b.h, in)
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
	var b hb
	b.fault("client-pause", 5, history.OK, []string{"c1"}, nil)
	wInv := b.client(10, 1, "c1", history.Invoke, history.FAcquire) // waiter during
	ok := b.acquired(20, 1, "c1", nil, 0)                           // holder during
	wr := b.client(25, 1, "c1", history.Invoke, history.FWrite)     // write during
	b.client(30, 1, "c1", history.OK, history.FWrite)
	b.stop("client-pause", 40)
	w := cover(t, b.h, in).Windows[0]
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
		end        func(b *hb)
	}{
		"release": {0, func(b *hb) { b.client(15, 1, "c1", history.Invoke, history.FRelease) }},
		"lost": {0, func(b *hb) {
			b.add(history.Op{Time: 15, Process: 1, Client: "c1", Type: history.Info, F: history.FLost, Key: "k", Token: "c1"})
		}},
		"validity": {18, func(*hb) {}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var b hb
			b.client(0, 1, "c1", history.Invoke, history.FAcquire)
			b.acquired(10, 1, "c1", nil, tc.validityMS)
			tc.end(&b)
			b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
			b.stop("client-pause", 50)
			r := cover(t, b.h, in)
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
	var b hb
	b.heldThenPaused(2, "c2")
	w := cover(t, b.h, in).Windows[0]
	if w.Holder != nil || w.Waiter != nil {
		t.Fatalf("a pause of c1 touched c2: %+v %+v", w.Holder, w.Waiter)
	}
}

func TestNodeFaultLeaseNodes(t *testing.T) {
	var b hb
	b.client(0, 1, "c1", history.Invoke, history.FAcquire)
	b.acquired(10, 1, "c1", []string{"n1", "n2"}, 0)
	b.fault("crash", 20, history.OK, nil, []string{"n3"}) // not in the lease
	b.stop("crash", 30)
	b.fault("crash", 40, history.OK, nil, []string{"n2"}) // in the lease
	b.stop("crash", 50)
	r := cover(t, b.h, Input{Clients: in.Clients, Nodes: in.Nodes, Requested: []string{"crash"}})
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
	var b2 hb
	b2.acquired(10, 1, "c2", nil, 0)
	b2.fault("crash", 20, history.OK, nil, []string{"n3"})
	b2.stop("crash", 30)
	if h := cover(t, b2.h, in).Windows[0].Holder; h == nil {
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
	var b hb
	b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
	b.client(100, 1, "c1", history.Invoke, history.FAcquire)
	b.acquired(110, 1, "c1", nil, 0)
	r := cover(t, b.h, in)
	w := r.Windows[0]
	if !w.Unhealed || w.End != 110e6 || w.StopOp != -1 {
		t.Fatalf("window = %+v, want unhealed to the end", w)
	}
	if w.Holder == nil || w.Holder.When != During || w.Waiter == nil {
		t.Fatalf("holder %+v waiter %+v, want both during", w.Holder, w.Waiter)
	}
}

func TestOldHistory(t *testing.T) {
	var b hb
	b.heldThenPaused(1, "")
	r := cover(t, b.h, in)
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
	var b hb
	for i := int64(0); i < 3; i++ {
		b.fault("client-pause", 100*i, history.OK, []string{"c1"}, nil)
		b.stop("client-pause", 100*i+50)
	}
	r := cover(t, b.h, Input{Clients: in.Clients, Requested: []string{"client-pause", "client-crash"},
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
	if s := cover(t, b.h, Input{}).Shortfall(1); len(s) != 0 {
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
// acquire's validity.
func TestExtendKeepsHolder(t *testing.T) {
	var b hb
	b.acquired(10, 1, "c1", nil, 18)
	b.client(15, 1, "c1", history.Invoke, history.FExtend)
	b.add(history.Op{Time: 16, Process: 1, Client: "c1", Type: history.OK, F: history.FExtend, Key: "k", Validity: 100})
	b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
	b.stop("client-pause", 50)
	if h := cover(t, b.h, in).Windows[0].Holder; h == nil || h.When != AtStart {
		t.Fatalf("holder = %+v, want at start (the extend ran the lease to 100 ms)", h)
	}
}

// A watchdog's renewal is recorded under a process of its own (the
// watchdog runs beside the holder): its extend ok still runs the
// holder's lease, matched by token, so a fault aimed right after it
// touches a holder.
func TestWatchdogExtendKeepsHolder(t *testing.T) {
	var b hb
	b.acquired(10, 1, "c1", nil, 18)
	b.add(history.Op{Time: 15, Process: 7, Client: "c1", Type: history.Invoke, F: history.FExtend, Key: "k", Token: "c1", Detail: "watchdog"})
	b.add(history.Op{Time: 16, Process: 7, Client: "c1", Type: history.OK, F: history.FExtend, Key: "k", Token: "c1", Validity: 100, Detail: "watchdog"})
	b.fault("partition", 20, history.OK, []string{"c1"}, nil)
	b.stop("partition", 50)
	if h := cover(t, b.h, in).Windows[0].Holder; h == nil || h.When != AtStart {
		t.Fatalf("holder = %+v, want at start (the watchdog's extend ran the lease to 100 ms)", h)
	}
}
