package harness

import (
	"context"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// noExpiryWait bounds how long a waiter crash waits for the lock key
// without an expiry before it takes a waiter as usual.
func noExpiryWait(ttl time.Duration) time.Duration { return max(2*ttl, 400*time.Millisecond) }

// staleKeyEvent is the age past which a key event is not acted on (the
// node is asked anyway, so this only spares the clients a needless stop).
const staleKeyEvent = 20 * time.Millisecond

// aimNoExpiry times a waiter crash of process clients to the lock key
// without an expiry: on a key event it stops every client inside acquire
// (stopInAcquire) and, if the node still shows no expiry, the crash takes
// them all; otherwise the wait goes on, until noExpiryWait or deadline.
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

// stopInAcquire stops the process clients inside acquire and returns
// their names when ev's key still has no expiry (they continue if not
// crashed within a second); else they continue and it returns none.
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

// startKeyEvents follows the lock key when the plan has waiter crashes of
// process clients (aimNoExpiry); nodes that refuse are logged.
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
