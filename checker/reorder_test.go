package checker

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// lateRecords moves some invokes of h later, past records of other
// processes (never past their own completion), as a renewal recorded at
// its computed invoke time arrives: the history is then out of time
// order. It returns the new history, re-indexed, and how many moved.
func lateRecords(h history.History, seed uint64, every, by int) (history.History, int) {
	out := slices.Clone(h)
	rng := rand.New(rand.NewPCG(seed, 1))
	moved := 0
	for i := 0; i < len(out)-by; i += every + rng.IntN(every) {
		o := out[i]
		if o.Type != history.Invoke || o.IsNemesis() {
			continue
		}
		j := i
		for j+1 < len(out) && j-i < by && out[j+1].Process != o.Process && out[j+1].Time > o.Time {
			out[j] = out[j+1]
			j++
		}
		out[j] = o
		if j > i {
			moved++
		}
	}
	return historytest.New().Append(out...).History(), moved
}

// TestRecordsOutOfTimeOrder: records arriving late (out of time order)
// go through the reorder buffer: the streamed check, cut in small
// segments, gives the whole check's verdicts and op indices; records
// later than the buffer's depth make liveness, fencing and tokens
// Unknown, never a verdict.
func TestRecordsOutOfTimeOrder(t *testing.T) {
	g := historytest.NewGen(5, 8, 3)
	g.Run(6000, true)
	h, moved := lateRecords(g.History(), 5, 12, 12)
	if moved < 50 || Validate(h) != nil {
		t.Fatalf("%d records moved, Validate: %v", moved, Validate(h))
	}
	_, whole := checkBoth(t, "late records", h, Options{Lock: NewLock(), Fencing: true})
	if whole.Valid != Valid {
		t.Errorf("late records: %v %v", whole.Valid, invalidParts(whole))
	}
	defer func(n int) { reorderDepth = n }(reorderDepth)
	reorderDepth = 2
	r := Standard(Options{Lock: NewLock(), Fencing: true}).Check(context.Background(), h)
	if r.Valid != Unknown {
		t.Fatalf("records later than the buffer's depth: %v", r.Valid)
	}
	for _, p := range r.Results {
		if (p.Name == "liveness" || p.Name == "fencing" || p.Name == "tokens") != (p.Valid == Unknown && strings.Contains(p.Error, "time order")) {
			t.Errorf("%s: %v %q", p.Name, p.Valid, p.Error)
		}
	}
}

// TestPanicInSegmentIsUnknown: a panic in one segment's check, on a
// goroutine of its own, makes the verdict Unknown with its message; the
// process goes on.
func TestPanicInSegmentIsUnknown(t *testing.T) {
	h := historytest.NewGen(3, 4, 2).Run(3000, true)
	defer smallSegments(100)()
	defer func(f func(int64)) { segmentChecked = f }(segmentChecked)
	segmentChecked = func(start int64) {
		if start > 0 {
			panic("boom in a segment")
		}
	}
	r := Standard(Options{Lock: NewLock(), Fencing: true}).Check(context.Background(), h)
	if r.Valid != Unknown || !strings.Contains(r.Results[0].Error, "boom in a segment") {
		t.Fatalf("a panicking segment: %v, lock %v %q", r.Valid, r.Results[0].Valid, r.Results[0].Error)
	}
}
