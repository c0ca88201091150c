package harness

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// fakeRun is a run with three idle client slots (processes 0, 1, 2) and a
// history, enough for the targeter; no Redis is involved.
func fakeRun(t *testing.T, healAt time.Duration) *run {
	rec := history.NewRecorder(nil)
	t.Cleanup(func() { rec.Close() })
	r := &run{cfg: config.Config{TTL: time.Second, Nodes: 1}, rec: rec, plan: &nemesis.Plan{HealAt: healAt, End: healAt}}
	procs := workloads.NewProcesses(3)
	for i := 0; i < 3; i++ {
		r.slots = append(r.slots, newSlot(r, i, procs, 1))
	}
	return r
}

// The targeter reads only new records, follows each process through
// acquire, critical section and release, and aims at the right client.
func TestResolveFollowsLeaseState(t *testing.T) {
	r := fakeRun(t, time.Minute)
	tg := newTargeter(r)
	rec := func(proc int, f string, typ history.Type) {
		r.rec.Record(history.Op{Process: proc, Client: config.ClientName(proc), F: f, Type: typ})
	}
	rec(0, history.FAcquire, history.Invoke)
	rec(1, history.FAcquire, history.Invoke)
	rec(1, history.FAcquire, history.OK)     // c2 holds
	rec(2, history.FAcquire, history.Invoke) // c1, c3 wait; c1 since longer
	pause := nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}, Target: nemesis.AimHolder}
	if got := tg.resolve(pause).Clients; len(got) != 1 || got[0] != "c2" {
		t.Fatalf("holder resolved to %v, want c2", got)
	}
	crash := nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetWaiter}, Target: nemesis.AimWaiter}
	if got := tg.resolve(crash).Clients; got[0] != "c1" {
		t.Fatalf("waiter resolved to %v, want c1 (waiting longest)", got)
	}
	rec(1, history.FRelease, history.Invoke) // c2 is releasing: no longer in its critical section
	rec(0, history.FAcquire, history.OK)     // c1 takes over
	seen := tg.seen
	if got := tg.resolve(pause).Clients; got[0] != "c1" {
		t.Fatalf("holder resolved to %v after c2 released and c1 acquired, want c1", got)
	}
	if tg.seen != seen+2 {
		t.Errorf("targeter read up to record %d, want %d: it must read each record once", tg.seen, seen+2)
	}
}

// With nobody holding, a targeted fault waits, but never past half a TTL
// before the final heal: then it falls back to the first client.
func TestResolveStopsWaitingBeforeHeal(t *testing.T) {
	r := fakeRun(t, 700*time.Millisecond)
	tg := newTargeter(r)
	start := time.Now()
	f := tg.resolve(nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}, Target: nemesis.AimHolder})
	if waited := time.Since(start); waited > time.Second {
		t.Errorf("resolve waited %v with the heal due at 700ms and TTL 1s, want about 200ms", waited)
	}
	if f.Clients[0] != "c1" || f.Target != nemesis.AimHolder {
		t.Errorf("fallback %v target %q, want c1 and the aim kept", f.Clients, f.Target)
	}
}

// A waiter aim takes the longest waiter while nobody holds the lock (it
// dies half-way through taking it), except on a lock that queues its
// waiters: there it waits for a holder and takes the queue's tail, so
// that the waiter dies queued rather than granted by the holder's release
// before the kill.
func TestResolveWaiterOfAQueue(t *testing.T) {
	for _, fair := range []bool{false, true} {
		r := fakeRun(t, time.Minute)
		r.cfg.Fair = fair
		tg := newTargeter(r)
		rec := func(proc int, f string, typ history.Type) {
			r.rec.Record(history.Op{Process: proc, Client: config.ClientName(proc), F: f, Type: typ})
		}
		rec(0, history.FAcquire, history.Invoke) // c1 waits longest; nobody holds
		rec(2, history.FAcquire, history.Invoke)
		held := make(chan time.Time, 1)
		go func() {
			time.Sleep(100 * time.Millisecond)
			held <- time.Now()
			rec(1, history.FAcquire, history.Invoke)
			rec(1, history.FAcquire, history.OK) // c2 holds
		}()
		crash := nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetWaiter}, Target: nemesis.AimWaiter}
		got := tg.resolve(crash).Clients
		at := time.Now()
		want := map[bool]string{false: "c1", true: "c3"}[fair] // the longest waiter, or the queue's tail
		if got[0] != want {
			t.Errorf("fair %v: waiter resolved to %v, want %s", fair, got, want)
		}
		heldAt := <-held
		if afterHolder := at.After(heldAt); afterHolder != fair {
			t.Errorf("fair %v: resolved after a holder appeared: %v, want %v", fair, afterHolder, fair)
		}
	}
}
