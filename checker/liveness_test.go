package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

func partition(o *history.Op) { o.Fault = "partition" }

// A history that ends shortly after the last heal gave the lock no time to
// recover (the holder's TTL has not even run out): recovery is not judged.
func TestLivenessCutShortAfterHealIsNotJudged(t *testing.T) {
	ctx := context.Background()
	mk := func(endMs int64) history.History {
		b := new(hb).
			add(0, history.Info, history.NemesisProcess, "start", "", "", partition).
			op(1, 2, history.OK, 0, "acquire", "k", "a", ttl(1000)).
			add(100, history.Info, history.NemesisProcess, "stop", "", "", partition)
		for t := int64(150); t < endMs; t += 100 {
			p := int(1 + t/100)
			b.op(t, t+10, history.Fail, p, "acquire", "k", "", ttl(1000))
		}
		return b.sorted()
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
	fails := func(b *hb) *hb {
		for i := 0; i < 5; i++ {
			b.op(int64(1000+1000*i), int64(1900+1000*i), history.Fail, 10+i, "acquire", "k", "")
		}
		return b
	}
	released := fails(new(hb).
		op(0, 1, history.OK, 2, "acquire", "k", "a").
		op(5, 6, history.OK, 2, "release", "k", "a")).sorted()
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
	h := fails(new(hb).
		op(0, 1, history.OK, 2, "acquire", "k", "a").
		op(5, 6, history.OK, 2, "release", "k", "a").
		op(7, 8, history.Info, 3, "acquire", "k", "b")).sorted()
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
func heldThenRefused(partitioned bool) *hb {
	b := new(hb).op(0, 1, history.OK, 0, "acquire", "k", "a", ttl(100))
	if partitioned {
		b.add(50, history.Info, history.NemesisProcess, "start", "", "", partition)
	}
	for i := 0; i < 5; i++ {
		b.op(int64(200+1000*i), int64(210+1000*i), history.Fail, 1+i, "acquire", "k", "", ttl(100))
	}
	return b
}

// Failures while a partition is still open at the end are the partition's
// doing, not a lock never freed.
func TestLivenessNeverFreedNotJudgedUnderOpenFault(t *testing.T) {
	r := (&Liveness{RequireRecovery: true}).Check(context.Background(), heldThenRefused(true).sorted())
	if kindsOf(r)["lock-never-freed"] != 0 || r.Valid != Unknown {
		t.Fatalf("%s", r)
	}
}

// Acquires that fail while a fault is in effect (a crashed quorum
// refuses them all) do not make a lock "never freed", even when the fault
// healed just before the history ended (a slow container restart): only
// failures while no fault was in effect count.
func TestLivenessNeverFreedIgnoresFailuresInAFault(t *testing.T) {
	b := heldThenRefused(true)
	b.add(4300, history.Info, history.NemesisProcess, "stop", "", "", partition)
	b.op(4400, 4410, history.Fail, 9, "acquire", "k", "", ttl(100))
	r := (&Liveness{RequireRecovery: true}).Check(context.Background(), b.sorted())
	if kindsOf(r)["lock-never-freed"] != 0 {
		t.Fatalf("failures inside the fault counted:\n%s", r)
	}
	// The same failures with no fault in effect: never freed.
	c := heldThenRefused(false)
	c.op(4400, 4410, history.Fail, 9, "acquire", "k", "", ttl(100))
	if r := (&Liveness{RequireRecovery: true}).Check(context.Background(), c.sorted()); kindsOf(r)["lock-never-freed"] != 1 {
		t.Fatalf("want lock-never-freed without faults:\n%s", r)
	}
}

// Without a RetryInterval the grace is the longest TTL plus the longest
// pause seen between a failed acquire and the same process's next one.
func TestLivenessRecoveryGraceFromHistory(t *testing.T) {
	h := new(hb).
		op(0, 1, history.OK, 0, "acquire", "k", "a", ttl(100)).
		op(2, 3, history.Fail, 1, "acquire", "k", "", ttl(100)).
		op(303, 304, history.Fail, 1, "acquire", "k", "", ttl(100)).sorted()
	d := (&Liveness{}).Check(context.Background(), h).Details.(LivenessDetails)
	if d.RecoveryGraceNS != 400*ms {
		t.Fatalf("grace %d ns, want 400 ms", d.RecoveryGraceNS)
	}
}
