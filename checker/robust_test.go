package checker

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A checker run on a history Validate would refuse (as Lock.Check alone
// can be) must not wrap around: invoke + TTL near the int64 limit
// saturates, so a second grant inside the lease is still caught.
func TestLockSaturatesNearInt64Limit(t *testing.T) {
	const top = math.MaxInt64 - int64(time.Second)
	h := history.History{
		{Index: 0, Time: top, Type: history.Invoke, Process: 0, F: "acquire", Key: "k", TTL: int64(time.Hour)},
		{Index: 1, Time: top + 1, Type: history.OK, Process: 0, F: "acquire", Key: "k", Token: "a", TTL: int64(time.Hour), Nodes: []string{"n1"}},
		{Index: 2, Time: top + 2, Type: history.Invoke, Process: 1, F: "acquire", Key: "k", TTL: int64(time.Hour)},
		{Index: 3, Time: top + 3, Type: history.OK, Process: 1, F: "acquire", Key: "k", Token: "b", TTL: int64(time.Hour), Nodes: []string{"n1"}},
	}
	done := make(chan Result, 1)
	go func() { done <- NewLock().Check(context.Background(), h) }()
	select {
	case r := <-done:
		if r.Valid != Invalid {
			t.Fatalf("double grant near the int64 limit accepted: %s", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lock check hangs near the int64 limit")
	}
	(&Liveness{RequireRecovery: true}).Check(context.Background(), h) // no panic
	if r := (Exclusion{}).Check(context.Background(), h); r.Valid != Invalid {
		t.Fatalf("exclusion near the limit: %s", r)
	}
}

// Fencing tokens above 2^53 survive the JSONL round trip and compare
// exactly: 2^60+1 then 2^60 accepted is a stale write, though the two are
// the same float64.
func TestFencesAbove2to53AreExact(t *testing.T) {
	const f = int64(1) << 60
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.Fence(f+1), historytest.TTL(100)).
		Op(2, 3, history.OK, 0, "write", "c", "", historytest.Fence(f+1), historytest.Value(1)).
		Op(4, 5, history.OK, 0, "release", "k", "a").
		Op(6, 7, history.OK, 1, "acquire", "k", "b", historytest.Fence(f+2), historytest.TTL(100)).
		Op(8, 9, history.OK, 1, "release", "k", "b").
		Op(10, 11, history.OK, 2, "write", "c", "", historytest.Fence(f), historytest.Value(2)).Sorted()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	back, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back[1].Fence != f+1 || back[10].Fence != f {
		t.Fatalf("fences changed in the round trip: %d %d", back[1].Fence, back[10].Fence)
	}
	if r := (Fencing{}).Check(context.Background(), back); r.Valid != Invalid || kindsOf(r)["stale-write-accepted"] == 0 {
		t.Fatalf("stale write with a token above 2^53 missed: %s", r)
	}
}
