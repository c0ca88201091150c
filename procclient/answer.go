package procclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// read is the Client's one reader of the client's stdout: it settles each
// answer with its call and applies each event, until stdout closes. A
// line that breaks the protocol (malformed, an answer to an unknown id, a
// second answer to an id) breaks the client; the rest of stdout is then
// drained so that the process never blocks writing it.
func (c *Client) read() {
	defer close(c.readerDone)
	for {
		line, req, err := c.conn.Recv()
		recv := receiptNow()
		switch {
		case err == io.EOF:
			c.stdoutClosed()
			return
		case err != nil:
			c.breakWith(err, !c.closing.Load())
			c.killGroup()
			io.Copy(io.Discard, c.stdout)
			return
		case line.Event != nil:
			c.event(*line.Event, recv)
		default:
			c.settle(req, *line.Answer, recv)
		}
	}
}

// stdoutClosed breaks a client that closed its stdout and did not exit
// soon after; an exit is reported by wait, with its status.
func (c *Client) stdoutClosed() {
	select {
	case <-c.exited:
	case <-time.After(exitReportDelay):
		c.breakWith(errors.New("closed its stdout but did not exit: killed"), !c.closing.Load())
		c.killGroup()
	}
}

// exitReportDelay is how long an exit and the end of stdout wait for each
// other, so that answers written just before an exit are still settled.
const exitReportDelay = 200 * time.Millisecond

// settle maps answer a to req's outcome and hands it to its caller; an
// answer whose caller stopped waiting goes to late.
func (c *Client) settle(req protocol.Request, a protocol.Answer, recv receipt) {
	c.mu.Lock()
	k := c.calls[req.ID]
	delete(c.calls, req.ID)
	c.mu.Unlock()
	if k == nil {
		c.late(req, a)
		return
	}
	if req.Op == protocol.OpAcquire && a.Type == protocol.TypeOK && a.Token == "" {
		c.breakWith(fmt.Errorf("ok answer to acquire request %d without a token", a.ID), true)
		k.done <- result{err: unknown(req.Op, req.Key, c.Err())}
		c.killGroup()
		return
	}
	k.done <- c.outcome(k, a, recv)
}

// outcome maps an answer to k to lockimpl's errors: ok is nil (with a
// lease for an acquire), fail wraps ErrNotObtained (acquire) or
// ErrNotHeld (release, extend; ErrUnsupported for an extend the client
// cannot do), info is unknown.
func (c *Client) outcome(k *call, a protocol.Answer, recv receipt) result {
	op, key := k.req.Op, k.req.Key
	switch a.Type {
	case protocol.TypeInfo:
		return result{err: unknown(op, key, fmt.Errorf("%s answered info: %s", c.who(), a.Error))}
	case protocol.TypeFail:
		switch {
		case op == protocol.OpAcquire:
			return result{err: fmt.Errorf("%w: process client %q: %s answered fail: %s", lockimpl.ErrNotObtained, key, c.who(), a.Error)}
		case op == protocol.OpExtend && strings.Contains(a.Error, lockimpl.ErrUnsupported.Error()):
			return result{err: fmt.Errorf("%w: process client extend %q: %s answered fail: %s", lockimpl.ErrUnsupported, key, c.who(), a.Error)}
		default:
			return result{err: fmt.Errorf("%w: process client %s %q: %s answered fail: %s", lockimpl.ErrNotHeld, op, key, c.who(), a.Error)}
		}
	}
	switch op {
	case protocol.OpAcquire:
		// An acquire retries until it gets the lock: its successful
		// command went out at some time up to the answer, not at the
		// request's send, so only the answer's time bounds it.
		at := recv.measured(a.MonoNS, k.sent)
		l := lockimpl.NewLease(key, a.Token, a.Fence, c.cfg.TTL, c.validUntil(at, at, a.ValidityMillis))
		l.Nodes = a.Nodes
		c.hold(l)
		return result{lease: l}
	case protocol.OpExtend:
		k.lease.SetValidity(c.validUntil(k.sent, recv.measured(a.MonoNS, k.sent), a.ValidityMillis))
	}
	return result{}
}

// validUntil is the validity of a lease the client says is valid for ms
// milliseconds at at, for a command sent no later than sent: never more
// than the server could grant, sent + TTL − drift allowance.
func (c *Client) validUntil(sent, at time.Time, ms int64) time.Time {
	v := at.Add(time.Duration(ms) * time.Millisecond)
	if limit := sent.Add(c.maxValid); limit.Before(v) {
		return limit
	}
	return v
}

// late handles an answer to a request whose caller stopped waiting (its
// ctx was cancelled): the lease of a late ok acquire is released, as
// nobody will use or release it, and its watchdog would keep the key
// taken for the rest of the run.
func (c *Client) late(req protocol.Request, a protocol.Answer) {
	if req.Op != protocol.OpAcquire || a.Type != protocol.TypeOK || a.Token == "" {
		return
	}
	if c.closing.Load() {
		c.logf("late ok answer to acquire request %d of %q while closing: its lease expires with its TTL", a.ID, req.Key)
		return
	}
	c.logf("late ok answer to acquire request %d of %q, whose caller gave up: releasing its lease", a.ID, req.Key)
	l := lockimpl.NewLease(req.Key, a.Token, a.Fence, c.cfg.TTL, time.Now())
	c.orphans.Add(1)
	go func() {
		defer c.orphans.Done()
		ctx, cancel := c.cfg.Clock.WithTimeout(context.Background(), c.cfg.TTL)
		defer cancel()
		if err := c.Release(ctx, l); err != nil {
			c.logf("release of the lease of late acquire request %d: %v", a.ID, err)
		}
	}()
}
