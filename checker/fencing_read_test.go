package checker

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A fenced read accepted with token 2 raises the mark: a write with token
// 1 invoked after it completed and accepted is a stale write accepted (the
// lost-update race of read-modify-write), although no write with token 2
// was accepted before it.
func TestFencingReadRaisesMark(t *testing.T) {
	ctx := context.Background()
	h := historytest.New().
		Op(0, 1, history.OK, 0, "read", "c", "", historytest.Fence(1), historytest.Value(0)).
		Op(2, 3, history.OK, 1, "read", "c", "", historytest.Fence(2), historytest.Value(0)).
		Op(4, 5, history.OK, 0, "write", "c", "", historytest.Fence(1), historytest.Value(1)).
		Op(6, 7, history.OK, 1, "write", "c", "", historytest.Fence(2), historytest.Value(1)).Sorted()
	r := Fencing{}.Check(ctx, h)
	st := r.Details.(FencingStats)
	if r.Valid != Invalid || kindsOf(r)["stale-write-accepted"] != 1 || st.ReadsAccepted != 2 {
		t.Fatalf("write 1 after read 2: %s", r)
	}
	if a := r.Anomalies[0]; len(a.Ops) != 2 || a.Ops[0] != 4 || a.Ops[1] != 5 {
		t.Fatalf("anomaly should name the stale write (ops 4, 5): %+v", a)
	}
	// the same with the stale write rejected: fencing at work
	h[5].Type, h[5].Error = history.Fail, StaleError
	if r := (Fencing{}).Check(ctx, h); r.Valid != Valid || r.Details.(FencingStats).Rejected != 1 {
		t.Fatalf("stale write rejected: %s", r)
	}
}

// A read rejected for its token is counted and is no anomaly; a read
// served with a lower token (no fencing of reads) is reported but not
// fatal; reads of unknown outcome raise nothing.
func TestFencingRejectedAndUnknownReads(t *testing.T) {
	ctx := context.Background()
	h := historytest.New().
		Op(0, 1, history.OK, 1, "read", "c", "", historytest.Fence(2), historytest.Value(0)).
		Op(2, 3, history.Fail, 0, "read", "c", "", historytest.Fence(1), historytest.Err(StaleError)).
		Op(4, 5, history.OK, 2, "read", "c", "", historytest.Fence(1), historytest.Value(0)).
		Op(6, 7, history.Info, 3, "read", "c", "", historytest.Fence(9)).
		Op(8, 9, history.OK, 1, "write", "c", "", historytest.Fence(2), historytest.Value(1)).Sorted()
	r := Fencing{}.Check(ctx, h)
	st := r.Details.(FencingStats)
	if r.Valid != Valid || st.ReadsRejected != 1 || st.ReadsAccepted != 2 || st.StaleReadsAccepted != 1 || st.StaleAccepted != 0 {
		t.Fatalf("reads: %s %+v", r, st)
	}
	if a := r.Anomalies; len(a) != 1 || a[0].Kind != "stale-read-accepted" || a[0].Fatal || len(a[0].Ops) != 2 {
		t.Fatalf("want one non-fatal stale-read-accepted naming its ops: %+v", a)
	}
}

// The resource's own log orders a fenced read before a write the history
// leaves concurrent with it: write 1 accepted after read 2 is a stale
// write accepted, naming the write's and the read's ops; rejected reads
// are counted.
func TestFencingServerLogReads(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "read", "k", "", historytest.Fence(1), historytest.Value(0)).
		Op(2, 50, history.OK, 0, "write", "k", "", historytest.Fence(1), historytest.Value(1)).
		Op(10, 11, history.OK, 1, "read", "k", "", historytest.Fence(2), historytest.Value(0)).
		Op(12, 13, history.OK, 1, "write", "k", "", historytest.Fence(2), historytest.Value(1)).Sorted()
	log := []ServerWrite{
		{Key: "k", Fence: 1, Accepted: true, Read: true, Time: 1 * ms},
		{Key: "k", Fence: 2, Accepted: true, Read: true, Time: 11 * ms},
		{Key: "k", Value: 1, Fence: 1, Accepted: true, Time: 12 * ms},
		{Key: "k", Value: 1, Fence: 2, Accepted: true, Time: 13 * ms},
	}
	r := Fencing{Log: NewServerLog(log)}.Check(context.Background(), h)
	if r.Valid != Invalid || len(r.Anomalies) != 1 {
		t.Fatalf("server log: %s", r)
	}
	// records by time: write by 1 = ops 2 and 7, read by 2 = ops 3 and 4
	if ops := r.Anomalies[0].Ops; len(ops) != 4 || ops[0] != 2 || ops[1] != 3 || ops[2] != 4 || ops[3] != 7 {
		t.Fatalf("anomaly should name the write by 1 (ops 2, 7) and the read by 2 (ops 3, 4): %v", ops)
	}
	log[2].Accepted = false
	if r := (Fencing{Log: NewServerLog(log)}).Check(context.Background(), h); r.Valid != Valid || r.Details.(FencingStats).ServerStaleRejected != 1 {
		t.Fatalf("write rejected after the read: %s", r)
	}
	log = append(log[:2:2], ServerWrite{Key: "k", Fence: 1, Read: true, Time: 12 * ms})
	st := (Fencing{Log: NewServerLog(log)}).Check(context.Background(), h).Details.(FencingStats)
	if st.ServerStaleReadsRejected != 1 {
		t.Fatalf("rejected read not counted: %+v", st)
	}
}

// A paused holder's fenced read lands after the next holder's section and
// is rejected: every checker is valid, the counter and the lock included
// (the rejected read is a fail: no section, no effect).
func TestFencedReadRejectedHistory(t *testing.T) {
	h, warns, err := history.ReadFile(filepath.Join("testdata", "fenced-read-rejected.jsonl"))
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	res := Standard(Options{Fencing: true}).Check(context.Background(), h)
	for _, r := range res.Results {
		if r.Valid != Valid {
			t.Errorf("%s: %v\n%s", r.Name, r.Valid, res)
		}
		if r.Name == "fencing" && r.Details.(FencingStats).ReadsRejected != 1 {
			t.Errorf("rejected read not counted: %+v", r.Details)
		}
	}
	if res.Valid != Valid {
		t.Fatalf("composed: %v", res.Valid)
	}
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
