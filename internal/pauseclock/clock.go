// Package pauseclock measures time as a process that can be stopped
// (SIGSTOP) sees its own timeouts: a Clock is paused while its process is
// stopped, and a timeout made with it fires only after its duration of
// running time, never during the stop.
package pauseclock

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Clock counts the time its process spent paused. The zero value is a
// running clock that was never paused. Safe for concurrent use.
type Clock struct {
	mu      sync.Mutex
	paused  bool
	since   time.Time     // start of the current pause
	total   time.Duration // paused time of finished pauses
	resumed chan struct{} // closed at the end of the current pause
}

// Pause stops the clock (the process was stopped). Pausing a paused clock
// does nothing.
func (c *Clock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return
	}
	c.paused, c.since, c.resumed = true, time.Now(), make(chan struct{})
}

// Resume restarts the clock (the process was continued). Resuming a
// running clock does nothing.
func (c *Clock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		return
	}
	c.total += time.Since(c.since)
	c.paused = false
	close(c.resumed)
}

// Paused is the total time the clock has been paused, the current pause
// included.
func (c *Clock) Paused() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return c.total + time.Since(c.since)
	}
	return c.total
}

// resumedCh is the channel closed at the end of the last pause (already
// closed while the clock runs), nil before the first pause.
func (c *Clock) resumedCh() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resumed
}

// WithTimeout is context.WithTimeout on running time: the returned context
// ends when parent ends or when d of time has passed outside pauses since
// the call. A nil Clock is the wall clock (context.WithTimeout).
func (c *Clock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if c == nil {
		return context.WithTimeout(parent, d)
	}
	ctx, cancel := context.WithCancelCause(parent)
	t := &timeout{clock: c, start: time.Now(), base: c.Paused(), d: d}
	ctx = context.WithValue(ctx, timeoutKey{}, t)
	go c.expire(ctx, cancel, t)
	return ctx, func() { cancel(context.Canceled) }
}

// timeout is one WithTimeout: d of running time from start, when the
// clock had been paused base in all.
type timeout struct {
	clock *Clock
	start time.Time
	base  time.Duration
	d     time.Duration
}

// left is the running time left before the timeout fires, at most d:
// the clock's paused time is read after the time since start, so during
// a pause it can exceed it by the microseconds between the two reads.
func (t *timeout) left() time.Duration {
	return min(t.d, t.d-(time.Since(t.start)-(t.clock.Paused()-t.base)))
}

type timeoutKey struct{}

// Remaining is the running time left of the innermost WithTimeout of a
// Clock in ctx, or, without one, the wall time left before ctx's
// deadline; ok is false when ctx has neither. A process client sends it
// as its request's timeout.
func Remaining(ctx context.Context) (d time.Duration, ok bool) {
	if t, ok := ctx.Value(timeoutKey{}).(*timeout); ok {
		return t.left(), true
	}
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl), true
	}
	return 0, false
}

// Expired reports whether ctx ended because a timeout (of a Clock, or a
// deadline) passed, rather than being cancelled.
func Expired(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}

// expire cancels ctx, with context.DeadlineExceeded as its cause, once d
// of running time has passed.
func (c *Clock) expire(ctx context.Context, cancel context.CancelCauseFunc, to *timeout) {
	t := time.NewTimer(to.d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ch := c.resumedCh(); ch != nil {
			select {
			case <-ctx.Done():
				return
			case <-ch:
			}
		}
		left := to.left()
		if left <= 0 {
			cancel(context.DeadlineExceeded)
			return
		}
		t.Reset(left)
	}
}
