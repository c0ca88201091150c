package checker

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// hb builds small histories by hand: times in ms.
type hb struct{ h history.History }

func (b *hb) add(t int64, typ history.Type, p int, f, key, tok string, mod ...func(*history.Op)) *hb {
	o := history.Op{Index: int64(len(b.h)), Time: t * ms, Type: typ, Process: p, F: f, Key: key, Token: tok}
	for _, m := range mod {
		m(&o)
	}
	b.h = append(b.h, o)
	return b
}

func ttl(msec int64) func(*history.Op) { return func(o *history.Op) { o.TTL = msec * ms } }
func val(v int64) func(*history.Op)    { return func(o *history.Op) { o.Value = v } }
func fence(f int64) func(*history.Op)  { return func(o *history.Op) { o.Fence = f } }
func validity(msec int64) func(*history.Op) {
	return func(o *history.Op) { o.Validity = msec * ms }
}
func errText(s string) func(*history.Op) { return func(o *history.Op) { o.Error = s } }

// op appends an invoke at t0 and its completion at t1 (times in ms).
func (b *hb) op(t0, t1 int64, typ history.Type, p int, f, key, tok string, mod ...func(*history.Op)) *hb {
	b.add(t0, history.Invoke, p, f, key, tok, mod...)
	return b.add(t1, typ, p, f, key, tok, mod...)
}

// sorted returns the history ordered by time and renumbered.
func (b *hb) sorted() history.History {
	g := &gen{recs: b.h}
	return g.history()
}

// opsAre reports whether an anomaly's record indices are want.
func opsAre(got []int64, want ...int64) bool { return slices.Equal(got, want) }

func exact() *Lock { return &Lock{Timeout: 5 * time.Second} } // no drift allowance

func checkLock(t *testing.T, l *Lock, h history.History) Result {
	t.Helper()
	if err := Validate(h); err != nil {
		t.Fatalf("test history invalid: %v", err)
	}
	return l.Check(context.Background(), h)
}

// aHolds starts a history in which process 0 holds lease "a" on key "k"
// from 1 ms, with a TTL of ttlMS.
func aHolds(ttlMS int64) *hb { return new(hb).op(0, 1, history.OK, 0, "acquire", "k", "a", ttl(ttlMS)) }

// aWaited starts a history in which process 0 waited from 0 to 500 ms for
// lease "a" on key "k" (TTL 100 ms, and mods).
func aWaited(mods ...func(*history.Op)) *hb {
	return new(hb).op(0, 500, history.OK, 0, "acquire", "k", "a", append([]func(*history.Op){ttl(100)}, mods...)...)
}

func TestLockModel(t *testing.T) {
	K := "k"
	ok, info, fail, invoke := history.OK, history.Info, history.Fail, history.Invoke
	cases := []struct {
		name string
		l    *Lock
		h    *hb
		want Validity
	}{
		{"handover after release", exact(), aHolds(100).
			op(5, 6, ok, 0, "release", K, "a").
			op(2, 7, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"takeover after the lease expired", exact(), aHolds(100).op(50, 100, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"takeover while the lease must be alive", exact(), aHolds(100).op(50, 99, ok, 1, "acquire", K, "b", ttl(100)), Invalid},
		{"drift allowance makes an early takeover legal", &Lock{DriftFactor: 0.05}, aHolds(100).op(50, 96, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		// b may only take over at >= 10 (a's lease); c returned at 5 and
		// cannot come before b (a still held) nor after it (b happened at
		// >= 10): a second acquire inside a live lease, caught only
		// because the model carries `now`.
		{"takeover forces later ops later", exact(), aHolds(10).
			op(2, 100, ok, 1, "acquire", K, "b", ttl(3)).
			op(3, 5, ok, 2, "acquire", K, "c", ttl(3)), Invalid},
		{"release ok by a non-holder", exact(), aHolds(100).
			op(200, 201, ok, 1, "acquire", K, "b", ttl(100)).
			op(202, 203, ok, 0, "release", K, "a"), Invalid},
		{"release info may free the lock", exact(), aHolds(100).
			op(2, 3, info, 0, "release", K, "a").
			op(10, 11, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"release never completed may free the lock", exact(), aHolds(100).
			add(2, invoke, 0, "release", K, "a").
			op(10, 11, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"info acquire blocks nothing", exact(), new(hb).
			op(0, 50, info, 0, "acquire", K, "a", ttl(100)).
			op(10, 11, ok, 1, "acquire", K, "b", ttl(100)).
			op(12, 13, ok, 1, "release", K, "b").
			op(20, 21, ok, 2, "acquire", K, "c", ttl(100)), Valid},
		{"extend moves the expiry", exact(), aHolds(10).
			op(8, 9, ok, 0, "extend", K, "a", ttl(10)).
			op(12, 13, ok, 1, "acquire", K, "b", ttl(10)), Invalid},
		{"without the extend the same takeover is fine", exact(), aHolds(10).op(12, 13, ok, 1, "acquire", K, "b", ttl(10)), Valid},
		{"extend by a watchdog process, matched by token", exact(), aHolds(10).
			op(8, 9, ok, 7, "extend", K, "a", ttl(10)).
			op(12, 13, ok, 1, "acquire", K, "b", ttl(10)), Invalid},
		{"extend ok of a lost lease", exact(), aHolds(10).
			op(20, 21, ok, 1, "acquire", K, "b", ttl(10)).
			op(22, 23, ok, 0, "extend", K, "a", ttl(10)), Invalid},
		// a waited 0..500 and its final attempt started at 450: the
		// recorded validity (550) is the promise, not invoke+TTL (100).
		{"recorded validity tightens a long wait's lease", exact(), aWaited(validity(550)).op(510, 520, ok, 1, "acquire", K, "b", ttl(100)), Invalid},
		{"without a validity the long wait proves nothing", exact(), aWaited().op(510, 520, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"an overstated validity is capped at return+TTL", exact(), aWaited(validity(5000)).op(610, 620, ok, 1, "acquire", K, "b", ttl(100)), Valid},
		{"no TTL: the lock never expires", exact(), new(hb).
			op(0, 1, ok, 0, "acquire", K, "a").
			op(5000, 5001, ok, 1, "acquire", K, "b"), Invalid},
		{"keys are independent", exact(), new(hb).
			op(0, 1, ok, 0, "acquire", "x", "a", ttl(100)).
			op(2, 3, ok, 1, "acquire", "y", "b", ttl(100)), Valid},
		{"not held while the lease is alive, not strict", exact(), aHolds(100).op(5, 6, fail, 0, "release", K, "a"), Valid},
		{"not held while the lease is alive, strict", &Lock{StrictNotHeld: true}, aHolds(100).op(5, 6, fail, 0, "release", K, "a"), Invalid},
		{"not held after the lease may have expired, strict", &Lock{StrictNotHeld: true}, aHolds(100).op(99, 120, fail, 0, "release", K, "a"), Valid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := checkLock(t, tc.l, tc.h.sorted())
			if res.Valid != tc.want {
				t.Fatalf("got %v, want %v\n%s", res.Valid, tc.want, res)
			}
			if tc.want == Invalid && (len(res.Anomalies) == 0 || len(res.Anomalies[0].Ops) < 2) {
				t.Fatalf("invalid without an anomaly naming ops\n%s", res)
			}
		})
	}
}

func TestLockAnomalyNamesCulpritAndHolder(t *testing.T) {
	h := new(hb).
		op(0, 1, history.OK, 0, "acquire", "k", "a", ttl(100)).
		op(50, 60, history.OK, 1, "acquire", "k", "b", ttl(100)).sorted()
	res := checkLock(t, exact(), h)
	if res.Valid != Invalid || len(res.Anomalies) != 1 {
		t.Fatalf("%s", res)
	}
	a := res.Anomalies[0]
	if !opsAre(a.Ops, 0, 1, 2, 3) {
		t.Errorf("ops %v, want [0 1 2 3]", a.Ops)
	}
	for _, s := range []string{"process 1", "held by a (process 0", "0.100s"} {
		if !strings.Contains(a.Text, s) {
			t.Errorf("text %q lacks %q", a.Text, s)
		}
	}
	if d := res.Details.(LockDetails); len(d.IllegalKeys) != 1 || d.IllegalKeys[0] != "k" {
		t.Errorf("illegal keys %v", d.IllegalKeys)
	}
}

func TestLockNoAcquireIsUnknown(t *testing.T) {
	h := new(hb).op(0, 10, history.Fail, 0, "acquire", "k", "").sorted()
	if res := checkLock(t, NewLock(), h); res.Valid != Unknown {
		t.Fatalf("%s", res)
	}
}

func TestLockTimeoutIsUnknown(t *testing.T) {
	g := newGen(7, 8, 1)
	h := g.run(40000, false)
	l := NewLock()
	l.Timeout = time.Microsecond
	res := checkLock(t, l, h)
	if res.Valid != Unknown || !strings.Contains(res.Error, "timed out") {
		t.Fatalf("got %v (%s), want unknown after a timeout", res.Valid, res.Error)
	}
}

// Random valid histories (a correct lease server, correct clients, with
// waits, pauses past the TTL, extends, info ops) must check valid; the
// same history with one counter section repeated by another process must
// fail the resource check, and with one acquire injected inside a live
// lease must fail the lock and exclusion checks.
func TestLockRandomHistories(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		g := newGen(seed, 8, 1+int(seed%3))
		h := g.run(600, seed%2 == 0)
		if err := Validate(h); err != nil {
			t.Fatalf("seed %d: generator made an invalid history: %v", seed, err)
		}
		res := Standard(Options{Fencing: true}).Check(context.Background(), h)
		for _, r := range res.Results {
			if r.Valid != Valid {
				t.Fatalf("seed %d: %s is %v on a valid history\n%s", seed, r.Name, r.Valid, r)
			}
		}
		if len(g.leases) == 0 {
			t.Fatalf("seed %d: no normal lease to inject into", seed)
		}
		lost := g.injectLostUpdate(int(seed) % len(g.leases))
		if r := (&Resource{}).Check(context.Background(), lost); r.Valid != Invalid || kindsOf(r)["nonlinearizable"] == 0 || kindsOf(r)["lost-update"] == 0 {
			t.Fatalf("seed %d: resource missed the injected lost update: %s", seed, r)
		}
		g.recs = g.recs[:len(g.recs)-4]
		bad := g.injectOverlap(int(seed) % len(g.leases))
		for _, c := range []Checker{NewLock(), Exclusion{}} {
			if r := c.Check(context.Background(), bad); r.Valid != Invalid {
				t.Fatalf("seed %d: %s missed the injected overlap: %v\n%s", seed, r.Name, r.Valid, r)
			}
		}
	}
}
