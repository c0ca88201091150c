package checker

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// ms and us are a millisecond and a microsecond in record time.
const (
	ms = historytest.MS
	us = historytest.US
)

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
func aHolds(ttlMS int64) *historytest.Builder {
	return historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(ttlMS))
}

// aWaited starts a history in which process 0 waited from 0 to 500 ms for
// lease "a" on key "k" (TTL 100 ms, and mods).
func aWaited(mods ...historytest.Mod) *historytest.Builder {
	return historytest.New().Op(0, 500, history.OK, 0, "acquire", "k", "a", append([]historytest.Mod{historytest.TTL(100)}, mods...)...)
}

// lockCase is a history and the lock check's verdict on it.
type lockCase struct {
	name string
	l    *Lock
	h    *historytest.Builder
	want Validity
}

func checkLockCases(t *testing.T, cases []lockCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := checkLock(t, tc.l, tc.h.Sorted())
			if res.Valid != tc.want {
				t.Fatalf("got %v, want %v\n%s", res.Valid, tc.want, res)
			}
			if tc.want == Invalid && (len(res.Anomalies) == 0 || len(res.Anomalies[0].Ops) < 2) {
				t.Fatalf("invalid without an anomaly naming ops\n%s", res)
			}
		})
	}
}

func TestLockModel(t *testing.T) {
	K := "k"
	ok, info, fail, invoke := history.OK, history.Info, history.Fail, history.Invoke
	checkLockCases(t, []lockCase{
		{"handover after release", exact(), aHolds(100).
			Op(5, 6, ok, 0, "release", K, "a").
			Op(2, 7, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"takeover after the lease expired", exact(), aHolds(100).Op(50, 100, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"takeover while the lease must be alive", exact(), aHolds(100).Op(50, 99, ok, 1, "acquire", K, "b", historytest.TTL(100)), Invalid},
		{"drift allowance makes an early takeover legal", &Lock{DriftFactor: 0.05}, aHolds(100).Op(50, 96, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		// b may only take over at >= 10 (a's lease); c returned at 5 and
		// cannot come before b (a still held) nor after it (b happened at
		// >= 10): a second acquire inside a live lease, caught only
		// because the model carries `now`.
		{"takeover forces later ops later", exact(), aHolds(10).
			Op(2, 100, ok, 1, "acquire", K, "b", historytest.TTL(3)).
			Op(3, 5, ok, 2, "acquire", K, "c", historytest.TTL(3)), Invalid},
		{"release ok by a non-holder", exact(), aHolds(100).
			Op(200, 201, ok, 1, "acquire", K, "b", historytest.TTL(100)).
			Op(202, 203, ok, 0, "release", K, "a"), Invalid},
		{"release info may free the lock", exact(), aHolds(100).
			Op(2, 3, info, 0, "release", K, "a").
			Op(10, 11, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"release never completed may free the lock", exact(), aHolds(100).
			Add(2, invoke, 0, "release", K, "a").
			Op(10, 11, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"info acquire blocks nothing", exact(), historytest.New().
			Op(0, 50, info, 0, "acquire", K, "a", historytest.TTL(100)).
			Op(10, 11, ok, 1, "acquire", K, "b", historytest.TTL(100)).
			Op(12, 13, ok, 1, "release", K, "b").
			Op(20, 21, ok, 2, "acquire", K, "c", historytest.TTL(100)), Valid},
		{"extend moves the expiry", exact(), aHolds(10).
			Op(8, 9, ok, 0, "extend", K, "a", historytest.TTL(10)).
			Op(12, 13, ok, 1, "acquire", K, "b", historytest.TTL(10)), Invalid},
		{"without the extend the same takeover is fine", exact(), aHolds(10).Op(12, 13, ok, 1, "acquire", K, "b", historytest.TTL(10)), Valid},
		{"extend by a watchdog process, matched by token", exact(), aHolds(10).
			Op(8, 9, ok, 7, "extend", K, "a", historytest.TTL(10)).
			Op(12, 13, ok, 1, "acquire", K, "b", historytest.TTL(10)), Invalid},
		{"extend ok of a lost lease", exact(), aHolds(10).
			Op(20, 21, ok, 1, "acquire", K, "b", historytest.TTL(10)).
			Op(22, 23, ok, 0, "extend", K, "a", historytest.TTL(10)), Invalid},
		// a waited 0..500 and its final attempt started at 450: the
		// recorded validity (550) is the promise, not invoke+TTL (100).
		{"recorded validity tightens a long wait's lease", exact(), aWaited(historytest.Validity(550)).Op(510, 520, ok, 1, "acquire", K, "b", historytest.TTL(100)), Invalid},
		{"without a validity the long wait proves nothing", exact(), aWaited().Op(510, 520, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"an overstated validity is capped at return+TTL", exact(), aWaited(historytest.Validity(5000)).Op(610, 620, ok, 1, "acquire", K, "b", historytest.TTL(100)), Valid},
		{"no TTL: the lock never expires", exact(), historytest.New().
			Op(0, 1, ok, 0, "acquire", K, "a").
			Op(5000, 5001, ok, 1, "acquire", K, "b"), Invalid},
		{"keys are independent", exact(), historytest.New().
			Op(0, 1, ok, 0, "acquire", "x", "a", historytest.TTL(100)).
			Op(2, 3, ok, 1, "acquire", "y", "b", historytest.TTL(100)), Valid},
		{"not held while the lease is alive, not strict", exact(), aHolds(100).Op(5, 6, fail, 0, "release", K, "a"), Valid},
		{"not held while the lease is alive, strict", &Lock{StrictNotHeld: true}, aHolds(100).Op(5, 6, fail, 0, "release", K, "a"), Invalid},
		{"not held after the lease may have expired, strict", &Lock{StrictNotHeld: true}, aHolds(100).Op(99, 120, fail, 0, "release", K, "a"), Valid},
		{"no acquire succeeded: nothing proved", NewLock(), historytest.New().Op(0, 10, fail, 0, "acquire", K, ""), Unknown},
	})
}

// Shared tokens, watchdog extends, unknown extends and one-node takeovers.
func TestLockModelLeases(t *testing.T) {
	K, ttl, ok, info := "k", historytest.TTL(100), history.OK, history.Info
	host := func() *historytest.Builder { return historytest.New().Op(0, 1, ok, 0, "acquire", K, "host", ttl) }
	watchdog := func() *historytest.Builder {
		return historytest.New().Op(0, 50, info, 0, "acquire", K, "a", ttl).Op(60, 61, ok, 7, "extend", K, "a", ttl)
	}
	infoExtend := func() *historytest.Builder {
		return host().Op(40, 41, info, 0, "extend", K, "host", ttl).Op(150, 151, ok, 1, "acquire", K, "host", ttl)
	}
	takeover := func(c0, c1 int64, ns ...string) *historytest.Builder {
		return historytest.New().Op(0, 1, ok, 0, "acquire", K, "a", ttl, historytest.Nodes(ns...)).
			Op(2, 101, ok, 1, "acquire", K, "b", ttl, historytest.Nodes(ns...)).
			Op(c0, c1, ok, 2, "acquire", K, "c", ttl, historytest.Nodes(ns...))
	}
	afterRelease := func(ns ...string) *historytest.Builder {
		return historytest.New().Op(0, 1, ok, 0, "acquire", K, "a", ttl, historytest.Nodes(ns...)).
			Op(2, 82, ok, 1, "acquire", K, "b", ttl, historytest.Nodes(ns...)).
			Op(80, 81, ok, 0, "release", K, "a").
			Op(105, 106, ok, 2, "acquire", K, "c", ttl, historytest.Nodes(ns...))
	}
	checkLockCases(t, []lockCase{
		// a lock that gives every client the same token (a host name): the
		// second acquire inside a live lease is another holder
		{"a reused token is another holder", exact(), host().Op(50, 51, ok, 1, "acquire", K, "host", ttl), Invalid},
		{"a reused token after a release is a handover", exact(), host().Op(10, 11, ok, 0, "release", K, "host").
			Op(50, 51, ok, 1, "acquire", K, "host", ttl).Op(60, 61, ok, 1, "release", K, "host"), Valid},
		// an acquire with unknown outcome whose lease a watchdog then
		// extended took effect: the extended lease lasts until 160
		{"extend ok of an unknown acquire's lease", exact(), watchdog(), Valid},
		{"handover after the watchdog's release", exact(), watchdog().Op(62, 63, ok, 7, "release", K, "a").Op(70, 71, ok, 1, "acquire", K, "b", ttl), Valid},
		{"a grant inside the watchdog's extended lease", exact(), watchdog().Op(70, 71, ok, 1, "acquire", K, "b", ttl), Invalid},
		// boundInfo with a reused token: p0's unknown extend may keep its
		// lease until 140, so p1's grant at 150 is legal, p2's at 152 not
		{"unknown extend, reused token", exact(), infoExtend(), Valid},
		{"unknown extend, reused token, grant in the next lease", exact(), infoExtend().Op(152, 153, ok, 2, "acquire", K, "host", ttl), Invalid},
		// a one-node lock: b waited from 2 until a's lease ended (100), so
		// its key was written no earlier than 100 and lasts until 200;
		// after a release (at 80) no earlier than 80. Redlock keeps the
		// bound from b's invoke.
		{"one node: a grant after a takeover", exact(), takeover(105, 106, "n1"), Invalid},
		{"redlock: a grant after a takeover", exact(), takeover(105, 106, "n1", "n2", "n3"), Valid},
		{"no nodes: a grant after a takeover", exact(), takeover(105, 106), Valid},
		{"one node: a grant after the takeover's lease", exact(), takeover(199, 201, "n1"), Valid},
		{"one node: a grant inside a lease taken after a release", exact(), afterRelease("n1"), Invalid},
		{"redlock: a grant after a lease taken after a release", exact(), afterRelease("n1", "n2", "n3"), Valid},
	})
}

// The anomaly names the culprit and the holder, also when both have one
// token (a host name).
func TestLockAnomalyNamesCulpritAndHolder(t *testing.T) {
	for _, tok := range []string{"", "host"} {
		h := historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", cmp.Or(tok, "a"), historytest.TTL(100)).
			Op(50, 60, history.OK, 1, "acquire", "k", cmp.Or(tok, "b"), historytest.TTL(100)).Sorted()
		res := checkLock(t, exact(), h)
		if res.Valid != Invalid || len(res.Anomalies) != 1 {
			t.Fatalf("%s", res)
		}
		a := res.Anomalies[0]
		if !opsAre(a.Ops, 0, 1, 2, 3) {
			t.Errorf("ops %v, want [0 1 2 3]", a.Ops)
		}
		for _, s := range []string{"process 1", "held by " + cmp.Or(tok, "a") + " (process 0", "0.100s"} {
			if !strings.Contains(a.Text, s) {
				t.Errorf("text %q lacks %q", a.Text, s)
			}
		}
		if d := res.Details.(LockDetails); len(d.IllegalKeys) != 1 || d.IllegalKeys[0] != "k" {
			t.Errorf("illegal keys %v", d.IllegalKeys)
		}
	}
}

func TestLockTimeoutIsUnknown(t *testing.T) {
	g := historytest.NewGen(7, 8, 1)
	h := g.Run(40000, false)
	l := NewLock()
	l.Timeout = time.Microsecond
	res := checkLock(t, l, h)
	if res.Valid != Unknown || !strings.Contains(res.Error, "timed out") {
		t.Fatalf("got %v (%s), want unknown after a timeout", res.Valid, res.Error)
	}
}

// Random valid histories (a correct lease server, correct clients, with
// waits, pauses past the TTL, extends, info ops) must check valid, also
// with their acquires naming one node; the
// same history with one counter section repeated by another process must
// fail the resource check, and with one acquire injected inside a live
// lease must fail the lock and exclusion checks.
func TestLockRandomHistories(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		g := historytest.NewGen(seed, 8, 1+int(seed%3))
		h := g.Run(600, seed%2 == 0)
		if err := Validate(h); err != nil {
			t.Fatalf("seed %d: generator made an invalid history: %v", seed, err)
		}
		res := Standard(Options{Fencing: true}).Check(context.Background(), h)
		for _, r := range res.Results {
			if r.Valid != Valid {
				t.Fatalf("seed %d: %s is %v on a valid history\n%s", seed, r.Name, r.Valid, r)
			}
		}
		// the one-node bound is sound: the same history, its acquires
		// naming the node, still checks valid
		for _, l := range []*Lock{NewLock(), exact()} {
			if r := checkLock(t, l, oneNode(slices.Clone(h))); r.Valid != Valid {
				t.Fatalf("seed %d, one node, drift %v: %s", seed, l.Drift, r)
			}
		}
		if len(g.Leases) == 0 {
			t.Fatalf("seed %d: no normal lease to inject into", seed)
		}
		lost := g.InjectLostUpdate(int(seed) % len(g.Leases))
		if r := (&Resource{}).Check(context.Background(), lost); r.Valid != Invalid || kindsOf(r)["nonlinearizable"] == 0 || kindsOf(r)["lost-update"] == 0 {
			t.Fatalf("seed %d: resource missed the injected lost update: %s", seed, r)
		}
		g.Recs = g.Recs[:len(g.Recs)-4]
		bad := g.InjectOverlap(int(seed) % len(g.Leases))
		for _, c := range []Checker{NewLock(), Exclusion{}} {
			if r := c.Check(context.Background(), bad); r.Valid != Invalid {
				t.Fatalf("seed %d: %s missed the injected overlap: %v\n%s", seed, r.Name, r.Valid, r)
			}
		}
	}
}
