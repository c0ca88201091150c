package harness

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// releaseStarts tells a fault aimed at a release that began
// (nemesis.TargetReleaser) which client has just begun one. Every
// worker's OnRelease hook calls began; a fault that waits for a release
// arms it first, so that while none waits a release costs one atomic
// load.
type releaseStarts struct {
	armed atomic.Bool
	ch    chan string
}

func newReleaseStarts() *releaseStarts { return &releaseStarts{ch: make(chan string, 1)} }

// began is client's OnRelease hook: it never blocks.
func (rs *releaseStarts) began(client string) {
	if rs.armed.Load() {
		select {
		case rs.ch <- client:
		default: // another release began first
		}
	}
}

// next waits until deadline for the next client whose release begins.
func (rs *releaseStarts) next(deadline time.Time) (string, bool) {
	for len(rs.ch) > 0 {
		<-rs.ch // a release from an earlier wait
	}
	rs.armed.Store(true)
	defer rs.armed.Store(false)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case c := <-rs.ch:
		return c, true
	case <-t.C:
		return "", false
	}
}

// resolveReleaser replaces nemesis.TargetReleaser in f's clients with
// the client whose release begins next, waiting for one until deadline;
// without one the fault still happens, on the first client (its record
// names what it hit).
func (s *targeter) resolveReleaser(f nemesis.Fault, deadline time.Time) nemesis.Fault {
	if !slices.Contains(f.Clients, nemesis.TargetReleaser) {
		return f
	}
	c, ok := s.r.releases.next(deadline)
	if ok {
		s.r.logf("%s aimed at client %s: its release began", f.Kind, c)
	} else {
		c = s.r.slots[0].name
	}
	f.Clients = slices.Clone(f.Clients)
	for i, x := range f.Clients {
		if x == nemesis.TargetReleaser {
			f.Clients[i] = c
		}
	}
	f.Links = nil // recomputed from the clients and nodes
	return f
}
