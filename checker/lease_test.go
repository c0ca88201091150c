package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

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
