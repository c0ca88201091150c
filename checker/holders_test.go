package checker

import (
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// The live watch declares a key stuck only on failures it can prove: while
// an acquire invoked before a failure completed is still in flight, it may
// turn out to have held the key. A slow acquire ok (the lock granted at
// once, the reply 2 s late) or one that ends unknown clears the failures
// beside it; one that fails leaves them proven, and the anomaly names it:
// the evidence is complete only at its completion.
func TestStuckWaitsForAcquiresInFlight(t *testing.T) {
	slow := func(outcome history.Type) history.History {
		b := historytest.New().Add(0, history.Invoke, 1, "acquire", "k", "", historytest.TTL(100))
		for i := int64(0); i < 6; i++ {
			b.Op(10+300*i, 20+300*i, history.Fail, 2+int(i%2), "acquire", "k", "", historytest.TTL(100))
		}
		b.Add(2000, outcome, 1, "acquire", "k", "a", historytest.TTL(100))
		return b.Sorted()
	}
	for _, typ := range []history.Type{history.OK, history.Info} {
		w := NewStuckWatch(0)
		for _, o := range slow(typ) {
			if a, ok := w.Add(&o); ok {
				t.Fatalf("acquire in flight that ends %s: declared stuck at op %d: %s", typ, o.Index, a.Text)
			}
		}
	}
	w := NewStuckWatch(0)
	declared, ops := int64(-1), []int64(nil)
	for _, o := range slow(history.Fail) {
		if a, ok := w.Add(&o); ok {
			declared, ops = o.Index, a.Ops
		}
	}
	// the first failure's invoke (op 1), the last failure's completion
	// (op 12) and the record that proved them (op 13)
	if declared != 13 || !opsAre(ops, 1, 12, 13) {
		t.Fatalf("acquire in flight that fails: declared at op %d naming ops %v, want 13 naming [1 12 13]", declared, ops)
	}
}

// A fault is in effect until its stop's last record (see windowPairer.add):
// acquires that failed between the stop's invoke and its completion prove
// no stuck lock, the same ones after the completion do.
func TestStuckWaitsForTheStopToComplete(t *testing.T) {
	for _, done := range []int64{1000, 2} {
		b := historytest.New().Nemesis(0, history.Info, history.FStart, "partition").
			Nemesis(1, history.Invoke, history.FStop, "partition").Nemesis(done, history.OK, history.FStop, "partition")
		for i := int64(1); i <= 6; i++ {
			b.Op(100*i, 100*i+10, history.Fail, 1, "acquire", "k", "", historytest.TTL(100))
		}
		w := NewStuckWatch(0)
		for _, o := range b.Sorted() {
			w.Add(&o)
		}
		if found := len(w.Found()); found != map[int64]int{1000: 0, 2: 1}[done] {
			t.Errorf("stop completed at %d ms: %d lock-stuck anomalies", done, found)
		}
	}
}
