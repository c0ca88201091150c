package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A holder paused past its validity while another process takes the
// lock: both act as holder at once (HeldOverlaps), but their validities
// never overlap (ValidOverlaps), so exclusion finds no overlap.
func TestLeasesHeldAndValidOverlaps(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Validity(95)).
		Op(110, 111, history.OK, 1, "acquire", "k", "b", historytest.TTL(100), historytest.Validity(205)).
		Op(150, 151, history.OK, 1, "release", "k", "b").
		Op(180, 181, history.Fail, 0, "release", "k", "a").
		Op(300, 301, history.OK, 2, "acquire", "k", "c", historytest.TTL(100)).
		Op(302, 303, history.OK, 2, "extend", "k", "c", historytest.TTL(100), historytest.Validity(390)).Sorted()
	ls := Leases(h, 0, 0)
	if len(ls) != 3 {
		t.Fatalf("%d leases, want 3", len(ls))
	}
	a, c := ls[0], ls[2]
	if end, why := a.HeldUntil(); a.Start() != 1*ms || end != 180*ms || why != "release" || a.Validity() != 95*ms {
		t.Errorf("lease a: start %d, held until %d (%s), validity %d", a.Start(), end, why, a.Validity())
	}
	if v := a.Valid(); len(v) != 1 || v[0] != [2]int64{1 * ms, 95 * ms} {
		t.Errorf("lease a valid %v", v)
	}
	// c recorded no validity at acquire: invoke + TTL with no allowance,
	// then the extend's; nothing cut it, so it is held until its last record.
	if end, why := c.HeldUntil(); end != 303*ms || why != "gone" || c.Validity() != 400*ms {
		t.Errorf("lease c: held until %d (%s), validity %d", end, why, c.Validity())
	}
	if v := c.Valid(); len(v) != 1 || v[0] != [2]int64{301 * ms, 400 * ms} {
		t.Errorf("lease c valid %v", v)
	}
	held := HeldOverlaps(ls)
	if len(held) != 1 || held[0].A.Lease != a || held[0].Start() != 111*ms || held[0].End() != 150*ms {
		t.Fatalf("held overlaps %+v, want a and b over [111ms, 150ms]", held)
	}
	if v := ValidOverlaps(ls); len(v) != 0 {
		t.Errorf("valid overlaps %+v, want none", v)
	}
	// a drift allowance shortens the acquire's fallback (300 + 100 − 50),
	// not the extend's recorded validity
	if d := Leases(h, 0, 0.5)[2].Valid(); len(d) != 1 || d[0] != [2]int64{301 * ms, 390 * ms} {
		t.Errorf("with the allowance c is valid over %v, want [301ms, 390ms]", d)
	}
}

// A takeover inside the drift allowance is legal for the lock checker, so
// exclusion's fallback for a lease without validity must not call it an
// overlap.
func TestExclusionFallbackSubtractsDrift(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
		Op(90, 99, history.OK, 1, "acquire", "k", "b", historytest.TTL(100)).Sorted()
	if res := checkLock(t, NewLock(), h); res.Valid != Valid {
		t.Fatalf("lock: %s", res)
	}
	c := Standard(Options{}).Check(context.Background(), h)
	for _, r := range c.Results {
		if r.Valid != Valid {
			t.Fatalf("%s: %s", r.Name, r)
		}
	}
	// without the allowance it is an overlap
	if res := (Exclusion{}).Check(context.Background(), h); res.Valid != Invalid {
		t.Fatalf("exclusion without drift: %s", res)
	}
}

// LateWriteFatal under fencing, with the resource's log: process 0's
// write (token 1, invoked at 150 ms after its validity ended at 90 ms)
// overlaps process 1's fenced read with token 2 (145-155 ms), so the
// history cannot tell which reached the resource first. Without a log
// the write is judged in token order (not fatal); with a log showing
// token 2 accepted first, it is out of order (fatal); with a log showing
// it first, in order. Without fencing it is fatal whatever the log.
func TestLateWriteFatalByTheResourceLog(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Validity(90), historytest.Fence(1)).
		Op(119, 120, history.OK, 1, "acquire", "k", "b", historytest.TTL(100), historytest.Validity(210), historytest.Fence(2)).
		Op(145, 155, history.OK, 1, "read", "c", "", historytest.Fence(2), historytest.Value(0)).
		Op(150, 151, history.OK, 0, "write", "c", "", historytest.Fence(1), historytest.Value(1)).Sorted()
	read := ServerWrite{Key: "c", Fence: 2, Accepted: true, Read: true, Time: 148 * ms}
	write := ServerWrite{Key: "c", Fence: 1, Value: 1, Accepted: true, Time: 152 * ms}
	readFirst, writeFirst := NewServerLog([]ServerWrite{read, write}), NewServerLog([]ServerWrite{write, read})
	for _, tc := range []struct {
		name   string
		e      Exclusion
		want   string
		result Validity
	}{
		{"fenced, no log", Exclusion{Fenced: true}, KindLateWriteInOrder, Valid},
		{"fenced, log: newer token first", Exclusion{Fenced: true, Log: readFirst}, KindLateWrite, Invalid},
		{"fenced, log: late write first", Exclusion{Fenced: true, Log: writeFirst}, KindLateWriteInOrder, Valid},
		{"unfenced", Exclusion{Log: writeFirst}, KindLateWrite, Invalid},
	} {
		r := tc.e.Check(context.Background(), h)
		if k := kindsOf(r); r.Valid != tc.result || k[tc.want] != 1 || len(r.Anomalies) != 1 {
			t.Errorf("%s: %v %v, want one %s and %v", tc.name, r.Valid, k, tc.want, tc.result)
		}
	}
}
