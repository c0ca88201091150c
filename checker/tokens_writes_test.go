package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// acquires builds an acquire by process 0 on key k0 at 0 ms and one by
// process 1 on k1 at 200 ms, both given token tok, with the outcomes
// first and second.
func acquires(first, second history.Type, k0, k1, tok string) *historytest.Builder {
	return historytest.New().
		Op(0, 1, first, 0, "acquire", k0, tok, historytest.TTL(100)).
		Op(200, 201, second, 1, "acquire", k1, tok, historytest.TTL(100))
}

// TestTokens: a token handed to two acquires of a key, and (for a lock
// that puts its fencing token on the writes only) two leases with
// different tokens writing one fence or one lease writing two fences, are
// the lock's defect, a "tokens" result first in the composition.
func TestTokens(t *testing.T) {
	ok, info, fail := history.OK, history.Info, history.Fail
	twoLeases := func(f0, f1 int64) *historytest.Builder {
		return historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(f0), historytest.Value(1)).
			Op(20, 21, ok, 0, "release", "k", "a").
			Op(30, 31, ok, 1, "acquire", "k", "b", historytest.TTL(100)).
			Op(40, 41, ok, 1, "write", "k", "", historytest.Fence(f1), historytest.Value(2))
	}
	cases := []struct {
		name string
		h    *historytest.Builder
		kind string
		ops  []int64 // nil: valid
	}{
		{"two processes", acquires(ok, ok, "k", "k", "host"), "reused-token", []int64{0, 1, 2, 3}},
		{"same process after its release", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "host", historytest.TTL(100)).
			Op(2, 3, ok, 0, "release", "k", "host").
			Op(4, 5, ok, 0, "acquire", "k", "host", historytest.TTL(100)), "reused-token", []int64{0, 1, 4, 5}},
		{"an unknown acquire then an ok with its token", acquires(info, ok, "k", "k", "host"), "reused-token", []int64{0, 1, 2, 3}},
		{"an ok then an unknown acquire with its token", acquires(ok, info, "k", "k", "host"), "reused-token", []int64{0, 1, 2, 3}},
		{"a failed acquire does not count", acquires(fail, ok, "k", "k", "host"), "", nil},
		{"two unknown acquires prove nothing", acquires(info, info, "k", "k", "host"), "", nil},
		{"other keys", acquires(ok, ok, "x", "y", "host"), "", nil},
		{"no token recorded", acquires(ok, ok, "k", "k", ""), "", nil},
		{"two leases, one fence", twoLeases(7, 7).Op(50, 51, ok, 1, "release", "k", "b"), "reused-fence", []int64{1, 2, 7, 8}},
		{"two leases, two fences", twoLeases(7, 8).Op(50, 51, ok, 1, "release", "k", "b"), "", nil},
		{"one lease, two fences", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(7), historytest.Value(1)).
			Op(20, 21, ok, 0, "write", "k", "", historytest.Fence(8), historytest.Value(2)).
			Op(30, 31, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 2, 4}},
		{"a write's fence other than the acquire's", historytest.New().
			Op(0, 1, ok, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Fence(5)).
			Op(10, 11, ok, 0, "write", "k", "", historytest.Fence(6), historytest.Value(1)).
			Op(20, 21, ok, 0, "release", "k", "a"), "fence-changed", []int64{1, 1, 2}},
		{"a stale write after the release is not the lease's", twoLeases(7, 8).
			Op(45, 46, ok, 0, "write", "k", "", historytest.Fence(7), historytest.Value(3)), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h.Sorted()
			if err := Validate(h); err != nil {
				t.Fatalf("test history invalid: %v", err)
			}
			c, _, err := Standard(Options{}).CheckSource(context.Background(), history.Slice(h))
			if err != nil {
				t.Fatal(err)
			}
			r := c.Results[0] // present only when it found a defect
			if tc.ops == nil {
				if r.Name == "tokens" {
					t.Fatalf("want valid:\n%s", r)
				}
				return
			}
			if c.Valid != Invalid || r.Name != "tokens" || r.Valid != Invalid || len(r.Anomalies) != 1 || r.Anomalies[0].Kind != tc.kind || !opsAre(r.Anomalies[0].Ops, tc.ops...) {
				t.Fatalf("want %s on ops %v:\n%s", tc.kind, tc.ops, c)
			}
		})
	}
}
