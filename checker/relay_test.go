package checker

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// The relay hands every record on once, in order, with its position, and
// the pass sees a copy: the caller's record may change after add returns.
func TestRelayHandsOnEveryRecordInOrder(t *testing.T) {
	for _, n := range []int{0, 1, relayBatch - 1, relayBatch, 3*relayBatch + 7} {
		var got []int64
		r := newRelay(func(o *history.Op, at history.Pos) {
			if at.Offset != o.Index*10 {
				t.Errorf("n %d: record %d at offset %d", n, o.Index, at.Offset)
			}
			got = append(got, o.Index)
		})
		var o history.Op
		for i := range int64(n) {
			o = history.Op{Index: i}
			r.add(&o, history.Pos{Offset: i * 10})
			o.Index = -1 // reused by the reader
		}
		r.wait()
		if len(got) != n {
			t.Fatalf("n %d: %d records handed on", n, len(got))
		}
		for i, x := range got {
			if x != int64(i) {
				t.Fatalf("n %d: record %d handed on as %d", n, i, x)
			}
		}
	}
}

// A pass riding on the check's read that panics makes the result Unknown,
// as a checker that panics does, and the process goes on.
func TestAlsoPanicIsUnknown(t *testing.T) {
	h := history.History{{Index: 0, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k"}}
	c := Compose()
	c.Also = func(*history.Op, history.Pos) { panic("pass broke") }
	res, _, err := c.CheckSource(t.Context(), history.Slice(h))
	if err != nil || res.Valid != Unknown || !strings.Contains(res.Error, "pass broke") {
		t.Fatalf("got %v %q, %v", res.Valid, res.Error, err)
	}
}
