package analysis

import (
	"context"
	"reflect"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/resource"
)

const lms = historytest.MS

// rec builds records for the live counter's tests: times in ms.
func inv(p int, f string, at int64) history.Op {
	return history.Op{Type: history.Invoke, Process: p, F: f, Key: "k", Time: at * lms}
}

func okAcq(p int, at int64, token string, validityMS int64) history.Op {
	return history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: "k", Time: at * lms, Token: token, Validity: validityMS * lms}
}

func withTok(o history.Op, token string) history.Op { o.Token = token; return o }

func done(p int, f string, at int64, ty history.Type, value int64) history.Op {
	return history.Op{Type: ty, Process: p, F: f, Key: "k", Time: at * lms, Value: value}
}

func live(ops ...history.Op) map[string]int {
	c := NewLiveCounter(config.Config{})
	for _, op := range ops {
		c.Add(op)
	}
	return c.Snapshot()
}

func TestLiveCounter(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []history.Op
		want map[string]int
	}{
		{"handover after release", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(1, history.FWrite, 10), done(1, history.FWrite, 11, history.OK, 1),
			withTok(inv(1, history.FRelease, 20), "a"),
			inv(2, history.FAcquire, 21), okAcq(2, 22, "b", 520),
			inv(2, history.FWrite, 30), done(2, history.FWrite, 31, history.OK, 2),
		}, nil},
		{"handover after validity", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(2, history.FAcquire, 501), okAcq(2, 502, "b", 1000),
		}, nil},
		{"two holders by their own view", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(2, history.FAcquire, 100), okAcq(2, 101, "b", 600),
		}, map[string]int{LiveOverlap: 1}},
		{"a lease signalled lost is not held", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			withTok(inv(1, history.FLost, 50), "a"),
			inv(2, history.FAcquire, 100), okAcq(2, 101, "b", 600),
		}, nil},
		{"an extend after a gap overlaps the next holder", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 100),
			inv(2, history.FAcquire, 150), okAcq(2, 151, "b", 600),
			withTok(inv(1, history.FExtend, 200), "a"),
			{Type: history.OK, Process: 1, F: history.FExtend, Key: "k", Token: "a", Time: 201 * lms, Validity: 700 * lms},
		}, map[string]int{LiveOverlap: 1}},
		{"a watchdog's extend of an unknown acquire holds it", []history.Op{
			withTok(inv(1, history.FAcquire, 0), "a"), withTok(done(1, history.FAcquire, 50, history.Info, 0), "a"),
			withTok(inv(9, history.FExtend, 60), "a"),
			{Type: history.OK, Process: 9, F: history.FExtend, Key: "k", Token: "a", Time: 61 * lms, Validity: 700 * lms},
			inv(2, history.FAcquire, 100), okAcq(2, 101, "b", 600),
		}, map[string]int{LiveOverlap: 1}},
		{"a release by another process ends the lease", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			withTok(inv(9, history.FRelease, 50), "a"),
			inv(2, history.FAcquire, 100), okAcq(2, 101, "b", 600),
		}, nil},
		{"accepted write after validity", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(1, history.FWrite, 700), done(1, history.FWrite, 701, history.OK, 1),
		}, map[string]int{LiveWriteAfterValidity: 1}},
		{"rejected write after validity is not counted", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(1, history.FWrite, 700), done(1, history.FWrite, 701, history.Fail, 0),
		}, nil},
		{"accepted write without a lease", []history.Op{
			inv(3, history.FWrite, 5), done(3, history.FWrite, 6, history.OK, 1),
		}, map[string]int{LiveWriteAfterValidity: 1}},
		{"lost update: the same value acknowledged twice", []history.Op{
			inv(1, history.FAcquire, 0), okAcq(1, 1, "a", 500),
			inv(1, history.FWrite, 10), done(1, history.FWrite, 11, history.OK, 6),
			withTok(inv(1, history.FRelease, 20), "a"),
			inv(2, history.FAcquire, 21), okAcq(2, 22, "b", 520),
			inv(2, history.FWrite, 30), done(2, history.FWrite, 31, history.OK, 6),
		}, map[string]int{LiveLostUpdate: 1}},
	} {
		if got := live(tc.ops...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The resource's log is taken incrementally: each entry counted once.
func TestLiveCounterResourceLog(t *testing.T) {
	c := NewLiveCounter(config.Config{})
	ws := []resource.Write{
		{Key: "k", Fence: 2, Accepted: true},
		{Key: "k", Fence: 1, Accepted: true, Stale: true},
		{Key: "k", Fence: 1, Accepted: false, Stale: true},
	}
	c.AddLogged(ws[:2], 0)
	c.AddLogged(ws, 0)
	ws = append(ws, resource.Write{Enter: true, Callers: 2}, resource.Write{Key: "k", Fence: 1, Read: true, Accepted: true, Stale: true})
	c.AddLogged(ws, 0)
	want := map[string]int{LiveStaleWrite: 1, LiveAPIOverlap: 1}
	if got := c.Snapshot(); !reflect.DeepEqual(got, want) || c.Total() != 2 {
		t.Errorf("%v (total %d), want %v", got, c.Total(), want)
	}
	p := config.Progress{Violations: 2, ViolationKinds: want}
	if s := p.String(); s[len(s)-len("violations so far 2 (api-overlap 1, stale-write-accepted 1)"):] != "violations so far 2 (api-overlap 1, stale-write-accepted 1)" {
		t.Errorf("String() = %q", s)
	}
}

// A key that is not granted for three TTLs past its holder's lease, while
// acquires keep failing and no fault is in effect, is counted stuck at the
// record that proves it, and the liveness checker names the same record.
func TestLiveCounterStuckAsTheChecker(t *testing.T) {
	ttl := historytest.TTL(100)
	b := historytest.New().Add(0, history.Invoke, 1, history.FAcquire, "k", "", ttl).Append(okAcq(1, 1, "a", 100))
	for i := int64(0); i < 4; i++ {
		b.Add(200+100*i, history.Invoke, int(2+i), history.FAcquire, "k", "", ttl).Add(210+100*i, history.Fail, int(2+i), history.FAcquire, "k", "")
	}
	h := b.History()
	c := NewLiveCounter(config.Config{})
	provedAt := -1
	for i, op := range h {
		c.Add(op)
		if provedAt < 0 && c.Snapshot()[LiveStuck] == 1 {
			provedAt = i
		}
	}
	// from = 1 + 100 ms; the third failure completes at 410 ms, 309 ms
	// later: past 3 TTLs (300 ms)
	if provedAt != 7 || c.Total() != 1 {
		t.Fatalf("stuck counted at record %d (total %d), want 7 (once)", provedAt, c.Total())
	}
	r := (&checker.Liveness{RequireRecovery: true}).Check(context.Background(), h)
	for _, a := range r.Anomalies {
		if a.Kind == LiveStuck && a.Fatal && a.Ops[len(a.Ops)-1] == 7 {
			return
		}
	}
	t.Fatalf("the checker does not name record 7 lock-stuck: %s", r)
}
