package lease

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// rec is a record of process p at time t (ns) on key "k".
func rec(p int, t int64, ty history.Type, f, token string) history.Op {
	return history.Op{Process: p, Time: t, Type: ty, F: f, Key: "k", Token: token}
}

// track feeds h (indices set) to a tracker and renders its events as
// "kind:process@at".
func track(opt Options, h ...history.Op) []string {
	tr := NewTracker(opt)
	var out []string
	show := func(evs []Event) {
		for _, e := range evs {
			out = append(out, fmt.Sprintf("%s:p%d@%d", []string{"start", "extend", "end"}[e.Kind], e.Lease.Process, e.At))
		}
	}
	for i := range h {
		h[i].Index = int64(i)
		show(tr.Add(&h[i]))
	}
	show(tr.Finish())
	return out
}

// A release invoke (by anyone naming the lease) or a lost notice ends a
// lease; a watchdog's extend starts an unknown acquire; a holder that
// stops recording is gone at its last record.
func TestTrackerRules(t *testing.T) {
	acq := func(p int, t int64, tok string) []history.Op {
		return []history.Op{rec(p, t, history.Invoke, history.FAcquire, ""), rec(p, t+1, history.OK, history.FAcquire, tok)}
	}
	cat := func(parts ...[]history.Op) []history.Op {
		var out []history.Op
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		name string
		h    []history.Op
		want []string
	}{
		{"release invoke", cat(acq(1, 0, "a"), []history.Op{rec(1, 5, history.Invoke, history.FRelease, "a"), rec(1, 6, history.OK, history.FRelease, "a")}),
			[]string{"start:p1@1", "end:p1@5"}},
		{"release by another process", cat(acq(1, 0, "a"), []history.Op{rec(9, 5, history.Invoke, history.FRelease, "a")}),
			[]string{"start:p1@1", "end:p1@5"}},
		{"lost notice", cat(acq(1, 0, "a"), []history.Op{rec(1, 4, history.Invoke, history.FLost, "a"), rec(1, 9, history.Invoke, history.FRead, "")}),
			[]string{"start:p1@1", "end:p1@4"}},
		{"gone at its last record", cat(acq(1, 0, "a"), []history.Op{rec(1, 7, history.Invoke, history.FRead, ""), rec(2, 20, history.Invoke, history.FRead, "")}),
			[]string{"start:p1@1", "end:p1@7"}},
		{"a watchdog extends an unknown acquire", []history.Op{
			rec(1, 0, history.Invoke, history.FAcquire, "a"), rec(1, 3, history.Info, history.FAcquire, "a"),
			rec(9, 4, history.Invoke, history.FExtend, "a"), rec(9, 5, history.OK, history.FExtend, "a"),
			rec(9, 6, history.Invoke, history.FExtend, "a"), rec(9, 7, history.OK, history.FExtend, "a")},
			[]string{"start:p1@5", "extend:p1@7", "end:p1@5"}},
		{"a failed acquire is no lease", []history.Op{rec(1, 0, history.Invoke, history.FAcquire, "a"), rec(1, 3, history.Fail, history.FAcquire, "a")}, nil},
	} {
		for _, forget := range []bool{false, true} {
			if got := track(Options{Forget: forget}, c.h...); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s (forget %v): %v, want %v", c.name, forget, got, c.want)
			}
		}
	}
}

// A forgetting tracker keeps a process's latest ended lease until the
// process's info completion (it never invokes again), then none.
func TestTrackerForgetsDeadProcess(t *testing.T) {
	h := []history.Op{rec(1, 0, history.Invoke, history.FAcquire, ""), rec(1, 1, history.OK, history.FAcquire, "a"),
		rec(1, 2, history.Invoke, history.FRelease, "a"), rec(1, 3, history.OK, history.FRelease, "a"),
		rec(1, 4, history.Invoke, history.FRead, ""), rec(1, 5, history.Info, history.FRead, "")}
	for _, forget := range []bool{false, true} {
		tr := NewTracker(Options{Forget: forget})
		var kept []int
		for i := range h {
			h[i].Index = int64(i)
			tr.Add(&h[i])
			kept = append(kept, len(tr.Of(1)))
		}
		if want := []int{0, 1, 1, 1, 1, map[bool]int{false: 1, true: 0}[forget]}; !reflect.DeepEqual(kept, want) {
			t.Errorf("forget %v: leases kept %v, want %v", forget, kept, want)
		}
	}
}

// A lease's belief: each ok's validity, else invoke + TTL less the drift
// allowance, else no end; cut at its end.
func TestTrackerValidity(t *testing.T) {
	h := []history.Op{
		{Process: 1, Time: 0, Type: history.Invoke, F: history.FAcquire, Key: "k", TTL: 1000},
		{Process: 1, Time: 10, Type: history.OK, F: history.FAcquire, Key: "k", Token: "a"},
		{Process: 1, Time: 500, Type: history.Invoke, F: history.FExtend, Key: "k", Token: "a"},
		{Process: 1, Time: 510, Type: history.OK, F: history.FExtend, Key: "k", Token: "a", Validity: 1400},
		{Process: 1, Time: 800, Type: history.Invoke, F: history.FRelease, Key: "k", Token: "a"},
	}
	tr := NewTracker(Options{DriftFactor: 0.1})
	var l *Lease
	for i := range h {
		for _, e := range tr.Add(&h[i]) {
			l = e.Lease
		}
	}
	if got := l.Valid(); !reflect.DeepEqual(got, [][2]int64{{10, 800}}) || l.Validity() != 1400 || l.CutBy != EndRelease {
		t.Fatalf("valid %v, validity %d, cut by %q", got, l.Validity(), l.CutBy)
	}
	if l.Segments[0] != [2]int64{10, 900} {
		t.Fatalf("acquire's segment %v, want to invoke + TTL − 10%%", l.Segments[0])
	}
}
