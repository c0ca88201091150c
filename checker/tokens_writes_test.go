package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// tokensOf is the tokens checker's result of the engine's verdict on h
// (the engine adds it only when it is invalid).
func tokensOf(t *testing.T, h history.History) Result {
	t.Helper()
	if err := Validate(h); err != nil {
		t.Fatalf("test history invalid: %v", err)
	}
	r, _, err := Standard(Options{}).CheckSource(context.Background(), history.Slice(h))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Results {
		if c.Name == "tokens" {
			return c
		}
	}
	return Result{Name: "tokens", Valid: Valid} // present only when it found a defect
}

// A lock that puts its fencing token on the writes only (the acquires
// answer none): the write's fence is its lease's fence. Two leases with
// different lock tokens writing with one fence are a token reuse; one
// lease writing with two fences is reported too; distinct fences, one
// per lease, are valid.
func TestTokensFencesSeenOnWrites(t *testing.T) {
	ok := history.OK
	twoLeases := func(f0, f1 int64) *historytest.Builder {
		return historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(f0), historytest.Value(1)).
			Op(20, 21, ok, 0, "release", "k", "a").
			Op(30, 31, ok, 1, "acquire", "k", "b", historytest.TTL(100)).
			Op(40, 41, ok, 1, "write", "k", "", historytest.Fence(f1), historytest.Value(2)).
			Op(50, 51, ok, 1, "release", "k", "b")
	}
	cases := []struct {
		name string
		h    *historytest.Builder
		kind string
		ops  []int64 // nil: valid
	}{
		{"two leases, one fence", twoLeases(7, 7), "reused-fence", []int64{1, 2, 7, 8}},
		{"two leases, two fences", twoLeases(7, 8), "", nil},
		{"one lease, two fences", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(7), historytest.Value(1)).
			Op(20, 21, ok, 0, "write", "k", "", historytest.Fence(8), historytest.Value(2)).
			Op(30, 31, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 2, 4}},
		{"a write's fence other than the acquire's", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Fence(5)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(6), historytest.Value(1)).
			Op(20, 21, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 1, 2}},
		{"a stale write after the release is not the lease's", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(7), historytest.Value(1)).
			Op(20, 21, ok, 0, "release", "k", "a").
			Op(30, 31, ok, 1, "acquire", "k", "b", historytest.TTL(100)).
			Op(40, 41, ok, 1, "write", "k", "", historytest.Fence(8), historytest.Value(2)).
			Op(45, 46, ok, 0, "write", "k", "", historytest.Fence(7), historytest.Value(3)), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tokensOf(t, tc.h.Sorted())
			if tc.ops == nil {
				if r.Valid != Valid {
					t.Fatalf("want valid:\n%s", r)
				}
				return
			}
			if r.Valid != Invalid || len(r.Anomalies) != 1 || r.Anomalies[0].Kind != tc.kind || !opsAre(r.Anomalies[0].Ops, tc.ops...) {
				t.Fatalf("want %s on ops %v:\n%s", tc.kind, tc.ops, r)
			}
		})
	}
}
