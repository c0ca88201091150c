package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A lock that gives every client the same token (a host name): the second
// acquire inside a live lease is another holder, not the first one again.
func TestLockReusedTokenIsAnotherHolder(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "host", historytest.TTL(100)).
		Op(50, 51, history.OK, 1, "acquire", "k", "host", historytest.TTL(100)).Sorted()
	res := checkLock(t, exact(), h)
	if res.Valid != Invalid {
		t.Fatalf("a second grant of a live lease with the same token passed\n%s", res)
	}
	if a := res.Anomalies[0]; !opsAre(a.Ops, 0, 1, 2, 3) || !strings.Contains(a.Text, "process 0") {
		t.Errorf("anomaly does not name both acquires: %+v", a)
	}
	// the same ops after a release are a legal handover for the lock model
	h = historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "host", historytest.TTL(100)).
		Op(10, 11, history.OK, 0, "release", "k", "host").
		Op(50, 51, history.OK, 1, "acquire", "k", "host", historytest.TTL(100)).
		Op(60, 61, history.OK, 1, "release", "k", "host").Sorted()
	if res := checkLock(t, exact(), h); res.Valid != Valid {
		t.Fatalf("handover with a reused token: %s", res)
	}
}

// With a shared token, one holder's release must cut its own lease in
// exclusion, not the other holder's.
func TestExclusionReusedTokenReleaseCutsOwnLease(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "host", historytest.TTL(100), historytest.Validity(100)).
		Op(2, 3, history.OK, 1, "acquire", "k", "host", historytest.TTL(100), historytest.Validity(103)).
		Op(50, 51, history.OK, 0, "release", "k", "host").Sorted()
	res := Exclusion{}.Check(context.Background(), h)
	if res.Valid != Invalid || len(res.Anomalies) != 1 {
		t.Fatalf("%s", res)
	}
	txt := res.Anomalies[0].Text
	for _, want := range []string{"process 0 (token host) held the lock in its own view over [0.001s, 0.050s]", "process 1 (token host) did over [0.003s, 0.103s]"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text %q lacks %q", txt, want)
		}
	}
}

// acquires builds an acquire by process 0 on key k0 at 0 ms and one by
// process 1 on k1 at 200 ms, both given token tok, with the outcomes
// first and second.
func acquires(first, second history.Type, k0, k1, tok string) *historytest.Builder {
	return historytest.New().
		Op(0, 1, first, 0, "acquire", k0, tok, historytest.TTL(100)).
		Op(200, 201, second, 1, "acquire", k1, tok, historytest.TTL(100))
}

func TestTokensReused(t *testing.T) {
	ok, info, fail := history.OK, history.Info, history.Fail
	cases := []struct {
		name string
		h    *historytest.Builder
		ops  []int64 // nil: no reuse
	}{
		{"two processes", acquires(ok, ok, "k", "k", "host"), []int64{0, 1, 2, 3}},
		{"same process after its release", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "host", historytest.TTL(100)).
			Op(2, 3, ok, 0, "release", "k", "host").
			Op(4, 5, ok, 0, "acquire", "k", "host", historytest.TTL(100)), []int64{0, 1, 4, 5}},
		{"an unknown acquire then an ok with its token", acquires(info, ok, "k", "k", "host"), []int64{0, 1, 2, 3}},
		{"an ok then an unknown acquire with its token", acquires(ok, info, "k", "k", "host"), []int64{0, 1, 2, 3}},
		{"a failed acquire does not count", acquires(fail, ok, "k", "k", "host"), nil},
		{"two unknown acquires prove nothing", acquires(info, info, "k", "k", "host"), nil},
		{"other keys", acquires(ok, ok, "x", "y", "host"), nil},
		{"no token recorded", acquires(ok, ok, "k", "k", ""), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h.Sorted()
			r := Tokens(h)
			if tc.ops == nil {
				if r.Valid != Valid {
					t.Fatalf("%s", r)
				}
				return
			}
			if r.Valid != Invalid || len(r.Anomalies) != 1 || !opsAre(r.Anomalies[0].Ops, tc.ops...) || r.Anomalies[0].Kind != "reused-token" {
				t.Fatalf("want reused-token on ops %v:\n%s", tc.ops, r)
			}
			// the composition blames the lock
			c := Standard(Options{}).Check(context.Background(), h)
			if c.Valid != Invalid || c.Results[0].Name != "tokens" || c.Results[0].Valid != Invalid {
				t.Fatalf("composition: %s", c)
			}
		})
	}
}

// An acquire whose outcome was unknown but whose lease a watchdog then
// extended took effect: the extend ok is the holder's, and it keeps the
// lock from others.
func TestLockInfoAcquireUsedByExtend(t *testing.T) {
	base := func() *historytest.Builder {
		return historytest.New().
			Op(0, 50, history.Info, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(60, 61, history.OK, 7, "extend", "k", "a", historytest.TTL(100))
	}
	if res := checkLock(t, exact(), base().Sorted()); res.Valid != Valid {
		t.Fatalf("extend ok of an unknown acquire's lease: %s", res)
	}
	if res := checkLock(t, exact(), base().Op(62, 63, history.OK, 7, "release", "k", "a").Op(70, 71, history.OK, 1, "acquire", "k", "b", historytest.TTL(100)).Sorted()); res.Valid != Valid {
		t.Fatalf("handover after the watchdog's release: %s", res)
	}
	// the extended lease lasts until 160: a grant at 70..71 breaks it
	h := base().Op(70, 71, history.OK, 1, "acquire", "k", "b", historytest.TTL(100)).Sorted()
	if res := checkLock(t, exact(), h); res.Valid != Invalid {
		t.Fatalf("a grant inside the extended lease passed: %s", res)
	}
	// exclusion sees the watchdog's lease too
	if res := (Exclusion{}).Check(context.Background(), h); res.Valid != Invalid {
		t.Fatalf("exclusion: %s", res)
	}
}

// boundInfo with a reused token: an extend with unknown outcome of the
// first lease must not be bounded by (or merged with) the second lease of
// the same token, nor may bounding change the verdict.
func TestLockBoundInfoReusedToken(t *testing.T) {
	// p0's extend (unknown) may have taken effect at 40, keeping p0's lease
	// until 140; p1's acquire at 150 is then legal; p2's acquire at 151
	// inside p1's lease is not, whatever the token.
	base := func() *historytest.Builder {
		return historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "host", historytest.TTL(100)).
			Op(40, 41, history.Info, 0, "extend", "k", "host", historytest.TTL(100)).
			Op(150, 151, history.OK, 1, "acquire", "k", "host", historytest.TTL(100))
	}
	if res := checkLock(t, exact(), base().Op(152, 153, history.OK, 2, "acquire", "k", "host", historytest.TTL(100)).Sorted()); res.Valid != Invalid {
		t.Fatalf("%s", res)
	}
	if res := checkLock(t, exact(), base().Sorted()); res.Valid != Valid {
		t.Fatalf("%s", res)
	}
}

// A one-node lock that records no validity: b waited from 2 until a's
// lease ended (100) and got the lock at 101; its key was written no earlier
// than 100, so its lease lasts until 200. c's grant at 105..106 breaks it.
// Redlock (several nodes) keeps the bound from b's invoke.
func TestLockOneNodeTakeoverBound(t *testing.T) {
	// c's grant at c0..c1 ms
	mk := func(c0, c1 int64, ns ...string) history.History {
		return historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Nodes(ns...)).
			Op(2, 101, history.OK, 1, "acquire", "k", "b", historytest.TTL(100), historytest.Nodes(ns...)).
			Op(c0, c1, history.OK, 2, "acquire", "k", "c", historytest.TTL(100), historytest.Nodes(ns...)).Sorted()
	}
	if res := checkLock(t, exact(), mk(105, 106, "n1")); res.Valid != Invalid {
		t.Fatalf("one node: second grant after a takeover passed\n%s", res)
	}
	for _, ns := range [][]string{{"n1", "n2", "n3"}, nil} {
		if res := checkLock(t, exact(), mk(105, 106, ns...)); res.Valid != Valid {
			t.Fatalf("nodes %v: %s", ns, res)
		}
	}
	// after a release: b's key is written after a's release (invoked at 80)
	rel := func(ns ...string) history.History {
		return historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Nodes(ns...)).
			Op(2, 82, history.OK, 1, "acquire", "k", "b", historytest.TTL(100), historytest.Nodes(ns...)).
			Op(80, 81, history.OK, 0, "release", "k", "a").
			Op(105, 106, history.OK, 2, "acquire", "k", "c", historytest.TTL(100), historytest.Nodes(ns...)).Sorted()
	}
	if res := checkLock(t, exact(), rel("n1")); res.Valid != Invalid {
		t.Fatalf("one node: grant inside a lease taken after a release passed\n%s", res)
	}
	if res := checkLock(t, exact(), rel("n1", "n2", "n3")); res.Valid != Valid {
		t.Fatalf("redlock: %s", res)
	}
	// c after b's lease from the takeover (200) is fine
	if res := checkLock(t, exact(), mk(199, 201, "n1")); res.Valid != Valid {
		t.Fatalf("%s", res)
	}
}

// The one-node bound is sound: random histories of a correct one-node
// server still check valid when their acquires name the node.
func TestLockOneNodeRandomHistoriesStayValid(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		g := historytest.NewGen(seed, 8, 1+int(seed%3))
		h := oneNode(g.Run(600, seed%2 == 0))
		if res := checkLock(t, NewLock(), h); res.Valid != Valid {
			t.Fatalf("seed %d: %s", seed, res)
		}
		if res := checkLock(t, exact(), h); res.Valid != Valid {
			t.Fatalf("seed %d, no drift: %s", seed, res)
		}
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
