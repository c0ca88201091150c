package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A history that ends shortly after the last heal gave the lock no time to
// recover (the holder's TTL has not even run out): recovery is not judged.
func TestLivenessCutShortAfterHealIsNotJudged(t *testing.T) {
	ctx := context.Background()
	mk := func(endMs int64) history.History {
		b := historytest.New().
			Nemesis(0, history.Info, "start", "partition").
			Op(1, 2, history.OK, 0, "acquire", "k", "a", historytest.TTL(1000)).
			Nemesis(100, history.Info, "stop", "partition")
		for t := int64(150); t < endMs; t += 100 {
			p := int(1 + t/100)
			b.Op(t, t+10, history.Fail, p, "acquire", "k", "", historytest.TTL(1000))
		}
		return b.Sorted()
	}
	short := mk(400)
	r := (&Liveness{RequireRecovery: true}).Check(ctx, short)
	if r.Valid != Unknown || kindsOf(r)["no-recovery"] != 0 || !strings.Contains(r.Error, "recovery not judged") {
		t.Fatalf("cut short: got %v\n%s", r.Valid, r)
	}
	if r := (&Liveness{}).Check(ctx, short); r.Valid != Valid || len(r.Details.(LivenessDetails).NotJudged) != 1 {
		t.Fatalf("not required: %s", r)
	}
	// given TTL + retry interval (here 100 ms asked for) and more, the
	// missing recovery counts
	long := mk(1400)
	if r := (&Liveness{RequireRecovery: true, RetryInterval: 100 * 1_000_000}).Check(ctx, long); r.Valid != Invalid || kindsOf(r)["no-recovery"] != 1 {
		t.Fatalf("long enough: %s", r)
	}
	// ...but not with a retry interval that leaves too little time
	if r := (&Liveness{RequireRecovery: true, RetryInterval: 500 * 1_000_000}).Check(ctx, long); r.Valid != Unknown {
		t.Fatalf("retry interval ignored: %s", r)
	}
}

// A holder that released normally did not leave the lock unfreed; when an
// acquire with unknown outcome took it afterwards, that acquire is named.
// Acquires that keep failing for seconds after a release, with no fault,
// are still a stuck lock (lock-stuck, naming the release), not a lock
// never freed.
func TestLivenessNeverFreedNamesTheRightHolder(t *testing.T) {
	ctx := context.Background()
	fails := func(b *historytest.Builder) *historytest.Builder {
		for i := 0; i < 5; i++ {
			b.Op(int64(1000+1000*i), int64(1900+1000*i), history.Fail, 10+i, "acquire", "k", "")
		}
		return b
	}
	released := fails(historytest.New().
		Op(0, 1, history.OK, 2, "acquire", "k", "a").
		Op(5, 6, history.OK, 2, "release", "k", "a")).Sorted()
	r := (&Liveness{RequireRecovery: true}).Check(ctx, released)
	if kindsOf(r)["lock-never-freed"] != 0 || kindsOf(r)["lock-stuck"] != 1 || r.Valid != Invalid {
		t.Fatalf("released lock called never freed, or not stuck: %s", r)
	}
	for _, a := range r.Anomalies {
		// stuck at the third failure's completion (op 9, 3.9 s after the
		// acquire ok, op 1: past the 3 s span of a history without TTLs);
		// the first failure's invoke is op 4
		if a.Kind == "lock-stuck" && (!opsAre(a.Ops, 1, 4, 9) || !strings.Contains(a.Text, "released it")) {
			t.Fatalf("lock-stuck: %+v", a)
		}
	}
	// process 3's acquire (ops 4,5) had an unknown outcome: it holds it
	h := fails(historytest.New().
		Op(0, 1, history.OK, 2, "acquire", "k", "a").
		Op(5, 6, history.OK, 2, "release", "k", "a").
		Op(7, 8, history.Info, 3, "acquire", "k", "b")).Sorted()
	r = (&Liveness{RequireRecovery: true}).Check(ctx, h)
	if r.Valid != Invalid || kindsOf(r)["lock-never-freed"] != 1 {
		t.Fatalf("%s", r)
	}
	for _, a := range r.Anomalies {
		if a.Kind != "lock-never-freed" {
			continue
		}
		if !opsAre(a.Ops, 4, 5, 14, 15) || strings.Contains(a.Text, "last taken by process 2") || !strings.Contains(a.Text, "process 3 (op 4)") {
			t.Fatalf("wrong culprit: %+v", a)
		}
	}
}

// heldThenRefused is a history in which process 0 takes key k with a
// 100 ms TTL and 5 acquires fail over the next 5 s, a partition starting
// at 50 ms when partitioned (it stays open).
func heldThenRefused(partitioned bool) *historytest.Builder {
	b := historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100))
	if partitioned {
		b.Nemesis(50, history.Info, "start", "partition")
	}
	for i := 0; i < 5; i++ {
		b.Op(int64(200+1000*i), int64(210+1000*i), history.Fail, 1+i, "acquire", "k", "", historytest.TTL(100))
	}
	return b
}

// Acquires that fail while a fault is in effect (a crashed quorum
// refuses them all) do not make a lock "never freed": not judged while
// the fault is still open at the end, and when it healed just before the
// history ended (a slow container restart) only failures while no fault
// was in effect count.
func TestLivenessNeverFreedIgnoresFailuresInAFault(t *testing.T) {
	r := (&Liveness{RequireRecovery: true}).Check(context.Background(), heldThenRefused(true).Sorted())
	if kindsOf(r)["lock-never-freed"] != 0 || r.Valid != Unknown {
		t.Fatalf("fault still open: %s", r)
	}
	b := heldThenRefused(true)
	b.Nemesis(4300, history.Info, "stop", "partition")
	b.Op(4400, 4410, history.Fail, 9, "acquire", "k", "", historytest.TTL(100))
	r = (&Liveness{RequireRecovery: true}).Check(context.Background(), b.Sorted())
	if kindsOf(r)["lock-never-freed"] != 0 {
		t.Fatalf("failures inside the fault counted:\n%s", r)
	}
	// The same failures with no fault in effect: never freed.
	c := heldThenRefused(false)
	c.Op(4400, 4410, history.Fail, 9, "acquire", "k", "", historytest.TTL(100))
	if r := (&Liveness{RequireRecovery: true}).Check(context.Background(), c.Sorted()); kindsOf(r)["lock-never-freed"] != 1 {
		t.Fatalf("want lock-never-freed without faults:\n%s", r)
	}
}

// Without a RetryInterval the grace is the longest TTL plus the longest
// pause seen between a failed acquire and the same process's next one.
func TestLivenessRecoveryGraceFromHistory(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
		Op(2, 3, history.Fail, 1, "acquire", "k", "", historytest.TTL(100)).
		Op(303, 304, history.Fail, 1, "acquire", "k", "", historytest.TTL(100)).Sorted()
	d := (&Liveness{}).Check(context.Background(), h).Details.(LivenessDetails)
	if d.RecoveryGraceNS != 400*ms {
		t.Fatalf("grace %d ns, want 400 ms", d.RecoveryGraceNS)
	}
}
