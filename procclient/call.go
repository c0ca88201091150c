package procclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/internal/pauseclock"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// call is one request awaiting its answer.
type call struct {
	req  protocol.Request
	sent time.Time // taken before the request is written
	// paused is Clock.Paused() at sent: running time since sent is
	// time.Since(sent) − (Clock.Paused() − paused).
	paused time.Duration
	lease  *lockimpl.Lease // release, extend: the lease operated on
	done   chan result     // receives the outcome once (buffered)
}

// result is a call's outcome: the lease of an ok acquire, or the error
// its answer maps to.
type result struct {
	lease *lockimpl.Lease
	err   error
}

// Acquire asks the client to acquire key, retrying until ctx's timeout
// (sent as timeout_ms). ok is a lease valid until min(receipt +
// validity_ms, send + TTL − drift allowance); fail wraps
// lockimpl.ErrNotObtained; anything else is unknown.
func (c *Client) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	r := c.call(ctx, protocol.Request{Op: protocol.OpAcquire, Key: key, TTLMillis: c.cfg.TTL.Milliseconds()}, nil)
	return r.lease, r.err
}

// Release asks the client to release l. fail wraps lockimpl.ErrNotHeld;
// anything but ok or fail is unknown. l's Done closes either way.
func (c *Client) Release(ctx context.Context, l *lockimpl.Lease) error {
	c.mu.Lock()
	delete(c.leases, l.Token) // its events, if any still come, are ignored
	c.mu.Unlock()
	err := c.call(ctx, protocol.Request{Op: protocol.OpRelease, Key: l.Key, Token: l.Token}, l).err
	if errors.Is(err, lockimpl.ErrNotHeld) {
		l.MarkLost(err)
	} else {
		l.MarkLost(lockimpl.ErrReleased) // as the in-process locks do, whatever the outcome
	}
	return err
}

// Extend asks the client to extend l. ok moves l's validity to
// min(receipt + validity_ms, send + TTL − drift allowance); fail wraps
// lockimpl.ErrNotHeld (lockimpl.ErrUnsupported when the client says it
// cannot extend); anything else is unknown.
func (c *Client) Extend(ctx context.Context, l *lockimpl.Lease) error {
	return c.call(ctx, protocol.Request{Op: protocol.OpExtend, Key: l.Key, Token: l.Token}, l).err
}

// call sends req with a fresh id and the running time left of ctx as its
// timeout, and waits for its outcome (see await).
func (c *Client) call(ctx context.Context, req protocol.Request, l *lockimpl.Lease) result {
	if c.isBroken() {
		return result{err: unknown(req.Op, req.Key, c.Err())}
	}
	if err := ctx.Err(); err != nil {
		return result{err: unknown(req.Op, req.Key, fmt.Errorf("not sent: %w", err))}
	}
	if d, ok := pauseclock.Remaining(ctx); ok {
		req.TimeoutMillis = max(d.Milliseconds(), 1)
	}
	// Ids are drawn and written in one step: requests reach the client,
	// and protocol.Pending, in the order of their ids.
	c.sendMu.Lock()
	req.ID = c.nextID.Add(1)
	if err := req.Validate(); err != nil { // an empty key or token: the caller's mistake
		c.sendMu.Unlock()
		return result{err: unknown(req.Op, req.Key, fmt.Errorf("not sent: %w", err))}
	}
	k := &call{req: req, lease: l, done: make(chan result, 1), paused: c.cfg.Clock.Paused(), sent: time.Now()}
	c.mu.Lock()
	c.calls[req.ID] = k
	c.mu.Unlock()
	err := c.conn.Send(req)
	c.sendMu.Unlock()
	if err != nil {
		c.breakWith(fmt.Errorf("request %d (%s %q) not written: %w", req.ID, req.Op, req.Key, err), !c.closing.Load())
		c.killGroup()
		if r, ok := c.abandon(k); ok {
			return r
		}
		return result{err: unknown(req.Op, req.Key, c.Err())}
	}
	return c.await(ctx, k)
}

// await waits for k's outcome. A cancelled ctx returns at once, unknown.
// A ctx whose timeout passed waits on: the client must answer within its
// timeout_ms plus Grace of running time (Clock) after the request was
// sent — a process stopped meanwhile had no time to act on it. A client
// that does not is killed and the outcome is unknown. A client that
// breaks makes the outcome unknown.
func (c *Client) await(ctx context.Context, k *call) result {
	select {
	case r := <-k.done:
		return r
	case <-c.broken:
		return c.gaveUp(k, c.Err())
	case <-ctx.Done():
	}
	if !pauseclock.Expired(ctx) {
		return c.gaveUp(k, ctx.Err())
	}
	grace, cancel := c.cfg.Clock.WithTimeout(context.Background(), c.answerTimeLeft(k))
	defer cancel()
	select {
	case r := <-k.done:
		return r
	case <-c.broken:
		return c.gaveUp(k, c.Err())
	case <-grace.Done():
	}
	c.breakWith(fmt.Errorf("did not answer request %d (%s %q, timeout_ms %d) within its timeout and %v of grace (running time): killed",
		k.req.ID, k.req.Op, k.req.Key, k.req.TimeoutMillis, c.cfg.Grace), true)
	c.Kill()
	return c.gaveUp(k, c.Err())
}

// answerTimeLeft is the running time left before the client must have
// answered k: its timeout_ms plus Grace after the request was sent.
func (c *Client) answerTimeLeft(k *call) time.Duration {
	running := time.Since(k.sent) - (c.cfg.Clock.Paused() - k.paused)
	return time.Duration(k.req.TimeoutMillis)*time.Millisecond + c.cfg.Grace - running
}

// gaveUp is the outcome of a call its caller stops waiting for: the
// answer if it was settled meanwhile, else unknown with cause.
func (c *Client) gaveUp(k *call, cause error) result {
	if r, ok := c.abandon(k); ok {
		return r
	}
	return result{err: unknown(k.req.Op, k.req.Key, cause)}
}

// abandon removes k from the calls awaiting an answer; if its answer
// came first, it returns that outcome instead.
func (c *Client) abandon(k *call) (result, bool) {
	c.mu.Lock()
	_, waiting := c.calls[k.req.ID]
	delete(c.calls, k.req.ID)
	c.mu.Unlock()
	if waiting {
		return result{}, false
	}
	return <-k.done, true // settle delivers before it lets go of the call
}
