package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// LateWriteFatal under fencing, with the resource's log: process 0's
// write (token 1, invoked at 150 ms after its validity ended at 90 ms)
// overlaps process 1's fenced read with token 2 (145-155 ms), so the
// history cannot tell which reached the resource first. Without a log
// the write is judged in token order (not fatal); with a log showing
// token 2 accepted first, it is out of order (fatal); with a log showing
// it first, in order. Without fencing it is fatal whatever the log.
func TestLateWriteFatalByTheResourceLog(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100), historytest.Validity(90), historytest.Fence(1)).
		Op(119, 120, history.OK, 1, "acquire", "k", "b", historytest.TTL(100), historytest.Validity(210), historytest.Fence(2)).
		Op(145, 155, history.OK, 1, "read", "c", "", historytest.Fence(2), historytest.Value(0)).
		Op(150, 151, history.OK, 0, "write", "c", "", historytest.Fence(1), historytest.Value(1)).Sorted()
	read := ServerWrite{Key: "c", Fence: 2, Accepted: true, Read: true, Time: 148 * ms}
	write := ServerWrite{Key: "c", Fence: 1, Value: 1, Accepted: true, Time: 152 * ms}
	readFirst, writeFirst := NewServerLog([]ServerWrite{read, write}), NewServerLog([]ServerWrite{write, read})
	for _, tc := range []struct {
		name   string
		e      Exclusion
		want   string
		result Validity
	}{
		{"fenced, no log", Exclusion{Fenced: true}, KindLateWriteInOrder, Valid},
		{"fenced, log: newer token first", Exclusion{Fenced: true, Log: readFirst}, KindLateWrite, Invalid},
		{"fenced, log: late write first", Exclusion{Fenced: true, Log: writeFirst}, KindLateWriteInOrder, Valid},
		{"unfenced", Exclusion{Log: writeFirst}, KindLateWrite, Invalid},
	} {
		r := tc.e.Check(context.Background(), h)
		if k := kindsOf(r); r.Valid != tc.result || k[tc.want] != 1 || len(r.Anomalies) != 1 {
			t.Errorf("%s: %v %v, want one %s and %v", tc.name, r.Valid, k, tc.want, tc.result)
		}
	}
}
