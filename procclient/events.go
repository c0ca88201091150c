package procclient

import (
	"fmt"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// hold records a lease granted by the client, so that its events reach it.
// A lease granted by a client already broken is lost at once.
func (c *Client) hold(l *lockimpl.Lease) {
	c.mu.Lock()
	err := c.err
	if err == nil {
		c.leases[l.Token] = l
	}
	c.mu.Unlock()
	if err != nil {
		l.MarkLost(fmt.Errorf("%w: %w", lockimpl.ErrLost, err))
	}
}

// event applies an event the client sent unasked: renewed moves a live
// lease's validity to min(at + validity_ms, at + TTL − drift allowance),
// at the event's measurement (receipt.measured; the renewal was sent
// before it, so the client cannot claim more); lost marks it lost. An event for a token of no live lease
// (one just released, say) is logged and ignored.
func (c *Client) event(e protocol.Event, recv receipt) {
	c.mu.Lock()
	l := c.leases[e.Token]
	if l != nil && e.Event == protocol.EventLost {
		delete(c.leases, e.Token)
	}
	c.mu.Unlock()
	if l == nil {
		c.logf("%s event for token %q of key %q, held by no live lease: ignored", e.Event, e.Token, e.Key)
		return
	}
	switch e.Event {
	case protocol.EventRenewed:
		select {
		case <-l.Done():
		default:
			at := recv.measured(e.MonoNS, recv.at.Add(-c.maxValid))
			l.SetValidity(c.validUntil(at, at, e.ValidityMillis))
		}
	case protocol.EventLost:
		l.MarkLost(fmt.Errorf("%w: %s says: %s", lockimpl.ErrLost, c.who(), e.Error))
	}
}
