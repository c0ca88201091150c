package harness

import (
	"context"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// noExpiryWait bounds how long a waiter crash waits for the lock key to
// exist without an expiry before it takes a waiter as usual: two TTLs (a
// lock that sets its TTL apart does so on every acquire, several times a
// TTL, fewer on a loaded machine), at least 400 ms.
func noExpiryWait(ttl time.Duration) time.Duration { return max(2*ttl, 400*time.Millisecond) }

// staleKeyEvent is the age past which a key event is too old to act on:
// the moment it announced has likely passed. The node is asked anyway
// once the clients are stopped (noExpiryNow), so this only spares them a
// needless stop; it must outlast a loaded machine's goroutine hand-off.
const staleKeyEvent = 20 * time.Millisecond

// aimNoExpiry times a waiter crash of process clients to the moment the
// lock key exists without an expiry: on a key event (keyEvents) it stops
// (SIGSTOP) every client whose process is inside acquire, then asks the
// node: if the key still has no expiry, one of them set it and has not
// yet given it one, and the crash takes them all (ok). Otherwise (the
// expiry came first) they continue and the wait goes on, until
// noExpiryWait or the deadline. A stopped client the crash does not
// reach within a second continues: nothing is left stopped.
func (s *targeter) aimNoExpiry(start, deadline time.Time) ([]string, bool) {
	for len(s.keys.events) > 0 {
		<-s.keys.events // events from before the fault
	}
	timer := time.NewTimer(min(time.Until(start.Add(noExpiryWait(s.r.cfg.TTL))), time.Until(deadline)))
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return nil, false
		case ev := <-s.keys.events:
			if time.Since(ev.at) > staleKeyEvent {
				continue
			}
			if victims := s.stopInAcquire(ev); len(victims) > 0 {
				s.r.logf("client-crash aimed at key %s without expiry on %s: clients %v inside acquire", ev.key, ev.node, victims)
				return victims, true
			}
		}
	}
}

// stopInAcquire stops the process clients inside acquire and keeps them
// stopped when ev's key still has no expiry; it returns their names, or
// none (every one continued).
func (s *targeter) stopInAcquire(ev noExpiry) []string {
	s.update()
	var in []*slot
	for _, sl := range s.r.slots {
		if p := s.procs[sl.worker.Process()]; p != nil && p.waiting && sl.signalStop() {
			in = append(in, sl)
		}
	}
	if len(in) == 0 {
		return nil
	}
	for _, sl := range in {
		sl.pause() // waits until stopped, pauses its timeouts
	}
	ctx := s.r.workCtx
	if !s.keys.noExpiryNow(ctx, ev.node, ev.key) {
		for _, sl := range in {
			sl.resume()
		}
		return nil
	}
	names := make([]string, len(in))
	for i, sl := range in {
		names[i] = sl.name
		pc := sl.process()
		time.AfterFunc(time.Second, func() {
			if sl.process() == pc { // not crashed
				sl.resume()
			}
		})
	}
	return names
}

// startKeyEvents follows the lock key for waiter crashes of process
// clients (see aimNoExpiry), when the plan has any; a run whose nodes
// refuse it logs why and aims its waiter crashes as before.
func (s *targeter) startKeyEvents(ctx context.Context) {
	r := s.r
	if !r.cfg.ProcessClients() || r.plan == nil || !slices.ContainsFunc(r.plan.Steps, func(st nemesis.Step) bool {
		return st.Fault.Kind == nemesis.KindClientCrash && slices.Contains(st.Fault.Clients, nemesis.TargetWaiter)
	}) {
		return
	}
	k, err := followKeys(ctx, r)
	if err != nil {
		r.logf("waiter crashes are not timed to the lock key without expiry: %v", err)
		return
	}
	s.keys = k
}

// close ends the targeter's subscriptions.
func (s *targeter) close() {
	if s != nil {
		s.keys.close()
	}
}
