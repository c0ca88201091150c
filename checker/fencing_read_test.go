package checker

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// TestFencingCases: issued tokens, accepted and rejected writes and fenced
// reads, and what the resource's own log adds.
func TestFencingCases(t *testing.T) {
	w := func(b *historytest.Builder, t0, t1 int64, typ history.Type, p int, op string, fence, value int64, mods ...historytest.Mod) *historytest.Builder {
		return b.Op(t0, t1, typ, p, op, "c", "", append(mods, historytest.Fence(fence), historytest.Value(value))...)
	}
	// the resource's log shows a stale write accepted that the history
	// cannot order: the delayed write overlaps the newer one in time
	delayed := w(w(historytest.New().Op(0, 1, history.OK, 0, "acquire", "c", "a", historytest.Fence(1)), 2, 50, history.OK, 0, "write", 1, 1).
		Op(10, 11, history.OK, 1, "acquire", "c", "b", historytest.Fence(2)), 12, 13, history.OK, 1, "write", 2, 1)
	// a fenced read accepted with token 2 raises the mark: write 1 after it
	// is stale (the lost-update race of read-modify-write)
	raised := func(last history.Type, mods ...historytest.Mod) history.History {
		b := w(w(historytest.New(), 0, 1, history.OK, 0, "read", 1, 0), 2, 3, history.OK, 1, "read", 2, 0)
		return w(w(b, 4, 5, last, 0, "write", 1, 1, mods...), 6, 7, history.OK, 1, "write", 2, 1).Sorted()
	}
	// the log orders a fenced read before a write the history leaves
	// concurrent with it
	readThenWrite := w(w(w(w(historytest.New(), 0, 1, history.OK, 0, "read", 1, 0), 2, 50, history.OK, 0, "write", 1, 1),
		10, 11, history.OK, 1, "read", 2, 0), 12, 13, history.OK, 1, "write", 2, 1).Sorted()
	reads := []ServerWrite{{Key: "c", Fence: 1, Accepted: true, Read: true, Time: 1 * ms}, {Key: "c", Fence: 2, Accepted: true, Read: true, Time: 11 * ms}}
	stats := func(r Result) FencingStats { return r.Details.(FencingStats) }
	cases := []struct {
		name  string
		h     history.History
		log   []ServerWrite
		want  Validity
		kinds map[string]int
		check func(Result) bool
	}{
		{"issued tokens going backwards, and a duplicate", historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.Fence(5)).
			Op(2, 3, history.OK, 1, "acquire", "k", "b", historytest.Fence(4)).
			Op(4, 5, history.OK, 2, "acquire", "k", "c", historytest.Fence(5)).Sorted(), nil, Invalid,
			map[string]int{"fence-not-increasing": 1, "fence-duplicate": 1}, nil},
		// concurrent writes are not ordered; equal tokens are fine
		{"concurrent writes", w(w(w(w(historytest.New(), 0, 10, history.OK, 0, "write", 2, 0), 1, 5, history.OK, 1, "write", 1, 0),
			11, 12, history.OK, 0, "write", 2, 0), 13, 14, history.Fail, 1, "write", 1, 0, historytest.Err("stale")).Sorted(), nil, Valid, nil,
			func(r Result) bool {
				st := stats(r)
				return st.Accepted == 3 && st.Rejected == 1 && st.StaleAccepted == 0
			}},
		// records out of time order are taken in time order
		{"unsorted", w(w(historytest.New(), 5, 6, history.OK, 1, "write", 1, 0), 0, 1, history.OK, 0, "write", 2, 0).History(), nil, Invalid,
			map[string]int{"stale-write-accepted": 1}, nil},
		{"delayed write, no log", delayed.Sorted(), nil, Valid, nil, nil},
		{"delayed write, log", delayed.Sorted(), []ServerWrite{{Key: "c", Value: 1, Fence: 2, Accepted: true, Time: 13 * ms}, {Key: "c", Value: 1, Fence: 1, Accepted: true, Time: 49 * ms}},
			Invalid, nil, func(r Result) bool { return len(r.Anomalies) == 1 && len(r.Anomalies[0].Ops) == 2 }},
		{"delayed write rejected, log", delayed.Sorted(), []ServerWrite{{Key: "c", Value: 1, Fence: 2, Accepted: true, Time: 13 * ms}, {Key: "c", Value: 1, Fence: 1, Time: 49 * ms}},
			Valid, nil, func(r Result) bool { return stats(r).ServerStaleRejected == 1 }},
		{"write 1 after read 2", raised(history.OK), nil, Invalid, map[string]int{"stale-write-accepted": 1},
			func(r Result) bool { return stats(r).ReadsAccepted == 2 && opsAre(r.Anomalies[0].Ops, 4, 5) }},
		{"write 1 after read 2 rejected", raised(history.Fail, historytest.Err(StaleError)), nil, Valid, nil, func(r Result) bool { return stats(r).Rejected == 1 }},
		// a read rejected for its token is counted; one served with a lower
		// token is reported, not fatal; reads of unknown outcome raise nothing
		{"rejected and unknown reads", w(w(w(w(w(historytest.New(), 0, 1, history.OK, 1, "read", 2, 0),
			2, 3, history.Fail, 0, "read", 1, 0, historytest.Err(StaleError)), 4, 5, history.OK, 2, "read", 1, 0),
			6, 7, history.Info, 3, "read", 9, 0), 8, 9, history.OK, 1, "write", 2, 1).Sorted(), nil, Valid, nil, func(r Result) bool {
			st, a := stats(r), r.Anomalies
			return st.ReadsRejected == 1 && st.ReadsAccepted == 2 && st.StaleReadsAccepted == 1 && st.StaleAccepted == 0 &&
				len(a) == 1 && a[0].Kind == "stale-read-accepted" && !a[0].Fatal && len(a[0].Ops) == 2
		}},
		// records by time: write by 1 = ops 2 and 7, read by 2 = ops 3 and 4
		{"the log's read before a write", readThenWrite, append(slices.Clone(reads),
			ServerWrite{Key: "c", Value: 1, Fence: 1, Accepted: true, Time: 12 * ms}, ServerWrite{Key: "c", Value: 1, Fence: 2, Accepted: true, Time: 13 * ms}),
			Invalid, nil, func(r Result) bool { return len(r.Anomalies) == 1 && opsAre(r.Anomalies[0].Ops, 2, 3, 4, 7) }},
		{"the log's write rejected after the read", readThenWrite, append(slices.Clone(reads),
			ServerWrite{Key: "c", Value: 1, Fence: 1, Time: 12 * ms}, ServerWrite{Key: "c", Value: 1, Fence: 2, Accepted: true, Time: 13 * ms}),
			Valid, nil, func(r Result) bool { return stats(r).ServerStaleRejected == 1 }},
		{"the log's read rejected", readThenWrite, append(slices.Clone(reads), ServerWrite{Key: "c", Fence: 1, Read: true, Time: 12 * ms}),
			anyVerdict, nil, func(r Result) bool { return stats(r).ServerStaleReadsRejected == 1 }},
	}
	for _, tc := range cases {
		f := Fencing{}
		if tc.log != nil {
			f.Log = NewServerLog(tc.log)
		}
		if r := f.Check(context.Background(), tc.h); !resultIs(r, tc.want, tc.kinds, tc.check) {
			t.Errorf("%s: %s", tc.name, r)
		}
	}
}

// resultIs reports whether r has verdict want (anyVerdict: any), exactly
// the counts of kinds, and passes check (if set).
func resultIs(r Result, want Validity, kinds map[string]int, check func(Result) bool) bool {
	ok := (want == anyVerdict || r.Valid == want) && (check == nil || check(r))
	for k, n := range kinds {
		ok = ok && kindsOf(r)[k] == n
	}
	return ok
}

// TestFencingHugeProcessIDs: processes with huge ids (pids, random ids)
// are checked as small ones are, without a slot for every smaller id.
func TestFencingHugeProcessIDs(t *testing.T) {
	mk := func(big int) history.History {
		return historytest.New().Append(history.History{
			{Time: 1, Type: history.Invoke, Process: 3, F: history.FWrite, Key: "c", Fence: 5, Value: 1},
			{Time: 2, Type: history.OK, Process: 3, F: history.FWrite, Key: "c", Fence: 5, Value: 1},
			{Time: 3, Type: history.Invoke, Process: big, F: history.FWrite, Key: "c", Fence: 4, Value: 2},
			{Time: 4, Type: history.OK, Process: big, F: history.FWrite, Key: "c", Fence: 4, Value: 2},
			{Time: 5, Type: history.Invoke, Process: big, F: history.FWrite, Key: "c", Fence: 6, Value: 3},
		}...).History()
	}
	small := Fencing{}.Check(context.Background(), mk(4))
	huge := Fencing{}.Check(context.Background(), mk(1<<40))
	small.Seconds, huge.Seconds = 0, 0 // timings
	for _, r := range []*Result{&small, &huge} {
		d := r.Details.(FencingStats)
		d.ElapsedMS = 0 // a timing too: 31 ms on a loaded machine
		r.Details = d
	}
	sj, _ := json.Marshal(small)
	hj, _ := json.Marshal(huge)
	if string(sj) != string(hj) || small.Valid != Invalid {
		t.Errorf("process 1<<40: %s\nprocess 4: %s", hj, sj)
	}
}
