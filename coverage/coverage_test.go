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
