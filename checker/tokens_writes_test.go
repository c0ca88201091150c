package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
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
	twoLeases := func(f0, f1 int64) *hb {
		return new(hb).
			op(0, 1, ok, 0, "acquire", "k", "a", ttl(100)).
			op(10, 11, ok, 0, "write", "k", "", fence(f0), val(1)).
			op(20, 21, ok, 0, "release", "k", "a").
			op(30, 31, ok, 1, "acquire", "k", "b", ttl(100)).
			op(40, 41, ok, 1, "write", "k", "", fence(f1), val(2)).
			op(50, 51, ok, 1, "release", "k", "b")
	}
	cases := []struct {
		name string
		h    *hb
		kind string
		ops  []int64 // nil: valid
	}{
		{"two leases, one fence", twoLeases(7, 7), "reused-fence", []int64{1, 2, 7, 8}},
		{"two leases, two fences", twoLeases(7, 8), "", nil},
		{"one lease, two fences", new(hb).
			op(0, 1, ok, 0, "acquire", "k", "a", ttl(100)).
			op(10, 11, ok, 0, "write", "k", "", fence(7), val(1)).
			op(20, 21, ok, 0, "write", "k", "", fence(8), val(2)).
			op(30, 31, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 2, 4}},
		{"a write's fence other than the acquire's", new(hb).
			op(0, 1, ok, 0, "acquire", "k", "a", ttl(100), fence(5)).
			op(10, 11, ok, 0, "write", "k", "", fence(6), val(1)).
			op(20, 21, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 1, 2}},
		{"a stale write after the release is not the lease's", new(hb).
			op(0, 1, ok, 0, "acquire", "k", "a", ttl(100)).
			op(10, 11, ok, 0, "write", "k", "", fence(7), val(1)).
			op(20, 21, ok, 0, "release", "k", "a").
			op(30, 31, ok, 1, "acquire", "k", "b", ttl(100)).
			op(40, 41, ok, 1, "write", "k", "", fence(8), val(2)).
			op(45, 46, ok, 0, "write", "k", "", fence(7), val(3)), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tokensOf(t, tc.h.sorted())
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
