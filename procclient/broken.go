package procclient

import (
	"errors"
	"fmt"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// ErrBroken is wrapped by Err and by the error of every operation whose
// client broke: it broke the protocol, exited, did not answer in time, or
// was killed or closed. Such an operation's outcome is unknown.
var ErrBroken = errors.New("procclient: client process broken")

// Broken is closed once the client broke the protocol, exited, did not
// answer in time, or was killed or closed. The harness then starts a new
// process (a new Client) in its slot; a Client never restarts itself.
func (c *Client) Broken() <-chan struct{} { return c.broken }

// Err is why Broken closed (nil while open). It wraps ErrBroken.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// breakWith closes Broken with cause as the reason (only the first call
// counts) and logs it when log is set. Callers awaiting an answer then
// return unknown, and every lease not released is marked lost: no
// process renews it any more.
func (c *Client) breakWith(cause error, log bool) {
	c.breakOnce.Do(func() {
		err := fmt.Errorf("%w: %s: %w", ErrBroken, c.who(), cause)
		c.mu.Lock()
		c.err = err
		leases := c.leases
		c.leases = map[string]*lockimpl.Lease{}
		c.mu.Unlock()
		if log {
			c.logf("%v", cause)
		}
		close(c.broken)
		for _, l := range leases {
			l.MarkLost(fmt.Errorf("%w: %w", lockimpl.ErrLost, err))
		}
	})
}

// isBroken reports whether Broken is closed.
func (c *Client) isBroken() bool {
	select {
	case <-c.broken:
		return true
	default:
		return false
	}
}

// unknown is the error of an operation whose outcome is unknown: it wraps
// lockimpl.ErrOutcomeUnknown and cause, never ErrNotObtained or
// ErrNotHeld.
func unknown(op, key string, cause error) error {
	return fmt.Errorf("%w: process client %s %q: %w", lockimpl.ErrOutcomeUnknown, op, key, cause)
}
