package harness

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// clientEvents tells a fault aimed at a release that began
// (TargetReleaser) or an extension that returned ok (TargetRenewal) which
// client just reached it; the workers' hooks call happened, which costs
// one atomic load while no fault waits.
type clientEvents struct {
	armed atomic.Bool
	ch    chan string
}

func newClientEvents() *clientEvents { return &clientEvents{ch: make(chan string, 1)} }

// happened is a worker's hook: it never blocks.
func (ev *clientEvents) happened(client string) {
	if ev.armed.Load() {
		select {
		case ev.ch <- client:
		default: // another client's came first
		}
	}
}

// next waits until deadline for the next client the event happens to.
func (ev *clientEvents) next(deadline time.Time) (string, bool) {
	for len(ev.ch) > 0 {
		<-ev.ch // from an earlier wait
	}
	ev.armed.Store(true)
	defer ev.armed.Store(false)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case c := <-ev.ch:
		return c, true
	case <-t.C:
		return "", false
	}
}

// resolveEvent replaces placeholder in f's clients with the client the
// event (what) happens to next, else at deadline with the first client.
func (s *targeter) resolveEvent(f nemesis.Fault, placeholder string, ev *clientEvents, what string, deadline time.Time) nemesis.Fault {
	if !slices.Contains(f.Clients, placeholder) {
		return f
	}
	c, ok := ev.next(deadline)
	if ok {
		s.r.logf("%s aimed at client %s: %s", f.Kind, c, what)
	} else {
		c = s.r.slots[0].name
		s.r.logf("%s aimed at %s: none within its wait, so at client %s", f.Kind, placeholder, c)
	}
	f.Clients = slices.Clone(f.Clients)
	for i, x := range f.Clients {
		if x == placeholder {
			f.Clients[i] = c
		}
	}
	f.Links = nil // recomputed from the clients and nodes
	return f
}
