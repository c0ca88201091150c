package protocol

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// held is a lease the client answered ok for and has not released.
type held struct {
	lease *lockimpl.Lease
	stop  chan struct{} // closed when its release starts

	mu       sync.Mutex
	explicit int // extend requests in progress (their renewal is answered, not an event)
}

// acquire runs Acquire; only ErrNotObtained is a certain failure.
func (s *server) acquire(ctx context.Context, req Request) Answer {
	if want := time.Duration(req.TTLMillis) * time.Millisecond; s.cfg.TTL > 0 && req.TTLMillis > 0 && want != s.cfg.TTL {
		return Answer{ID: req.ID, Type: TypeFail, Error: fmt.Sprintf("protocol: ttl_ms %d differs from the client's TTL %v", req.TTLMillis, s.cfg.TTL)}
	}
	l, err := s.lock.Acquire(ctx, req.Key)
	a := outcome(req.ID, err, lockimpl.ErrNotObtained)
	if err != nil {
		return a
	}
	h := &held{lease: l, stop: make(chan struct{})}
	s.mu.Lock()
	s.leases[l.Token] = h
	s.mu.Unlock()
	l.ObserveValidity(func(old, v time.Time) { s.renewed(h, old, v) })
	go s.watchLost(h)
	a.Token, a.Fence, a.Nodes = l.Token, l.Fence, l.Nodes
	a.ValidityMillis, a.MonoNS = remaining(l)
	return a
}

// release runs Release; only ErrNotHeld is a certain failure, and so is a
// token this client does not hold.
func (s *server) release(ctx context.Context, req Request) Answer {
	s.mu.Lock()
	h := s.leases[req.Token]
	delete(s.leases, req.Token)
	s.mu.Unlock()
	if h == nil {
		return notHeld(req)
	}
	close(h.stop)
	h.lease.ObserveValidity(nil)
	return outcome(req.ID, s.lock.Release(ctx, h.lease), lockimpl.ErrNotHeld)
}

// extend runs Extend; ErrNotHeld, an unknown token and a lock that cannot
// extend are certain failures.
func (s *server) extend(ctx context.Context, req Request) Answer {
	e, ok := s.lock.(lockimpl.Extender)
	if !ok {
		return Answer{ID: req.ID, Type: TypeFail, Error: lockimpl.ErrUnsupported.Error() + ": extend"}
	}
	s.mu.Lock()
	h := s.leases[req.Token]
	s.mu.Unlock()
	if h == nil {
		return notHeld(req)
	}
	h.count(+1)
	err := e.Extend(ctx, h.lease)
	h.count(-1)
	a := outcome(req.ID, err, lockimpl.ErrNotHeld)
	if err == nil {
		a.ValidityMillis, a.MonoNS = remaining(h.lease)
	}
	return a
}

// notHeld answers a release or extend of a token the client does not hold.
func notHeld(req Request) Answer {
	return Answer{ID: req.ID, Type: TypeFail, Error: fmt.Sprintf("%v: %s of unknown token %q", lockimpl.ErrNotHeld, req.Op, req.Token)}
}

func (h *held) count(delta int) {
	h.mu.Lock()
	h.explicit += delta
	h.mu.Unlock()
}

// renewed sends a renewed event for a validity moved forward outside any
// extend request.
func (s *server) renewed(h *held, old, v time.Time) {
	h.mu.Lock()
	explicit := h.explicit
	h.mu.Unlock()
	if explicit > 0 || !v.After(old) {
		return
	}
	ms, mono := until(v)
	s.send(Event{Event: EventRenewed, Key: h.lease.Key, Token: h.lease.Token, ValidityMillis: ms, MonoNS: mono})
}

// watchLost sends a lost event when the lease's Done closes before its
// release starts (a watchdog that failed to renew).
func (s *server) watchLost(h *held) {
	l := h.lease
	select {
	case <-h.stop:
	case <-l.Done():
		if err := l.Err(); !errors.Is(err, lockimpl.ErrReleased) {
			s.send(Event{Event: EventLost, Key: l.Key, Token: l.Token, Error: fmt.Sprint(err)})
		}
	}
}
