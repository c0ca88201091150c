package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

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
