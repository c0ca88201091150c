package history

import (
	"strings"
	"testing"
)

// An observed invoke back-dated to before the history's start is recorded
// at 0 with its real offset in the detail; the history stays valid.
func TestRecordAtBeforeStartIsClampedToZero(t *testing.T) {
	r := NewRecorder(nil)
	inv := r.RecordAt(Op{Type: Invoke, Process: 7, F: FExtend, Key: "k", Token: "t", Detail: "observed: Lease.SetValidity"}, -6308675)
	r.Record(Op{Type: OK, Process: 7, F: FExtend, Key: "k", Token: "t"})
	if inv.Time != 0 {
		t.Errorf("invoke at %d ns, want 0", inv.Time)
	}
	if !strings.HasPrefix(inv.Detail, "observed: Lease.SetValidity") || !strings.Contains(inv.Detail, "began 6.308675ms before the history's start") {
		t.Errorf("detail %q lost the observation or its real offset", inv.Detail)
	}
	h := r.History()
	if len(h) != 2 {
		t.Fatalf("%d records, want 2: nothing is dropped", len(h))
	}
	for _, o := range h {
		if o.Time < 0 {
			t.Errorf("op %d at %d ns: negative", o.Index, o.Time)
		}
	}
	if got := r.RecordAt(Op{Type: Invoke, Process: 8, F: FExtend}, 5); got.Time != 5 || got.Detail != "" {
		t.Errorf("a time after the start changed: %+v", got)
	}
}
