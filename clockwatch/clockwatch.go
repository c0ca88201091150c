// Package clockwatch watches the clocks a run's verdict depends on while
// the run goes on. lockstorm times leases by the monotonic clock, while
// Redis expires keys by its wall clock (the machine's, for the local and
// docker providers). A step of the wall clock (a virtual machine fork, a
// hard NTP step) makes keys vanish early or late, and the history then
// shows an overlap that the lock did not cause. The watch samples the
// offset between the wall and monotonic clocks, and each node's TIME
// against the monotonic clock, and reports every change of an offset
// larger than the run's drift allowance within one TTL: a clock event.
// A run with a clock event has no verdict (unknown), naming the event,
// instead of blaming the lock.
//
// The clock-jump fault (package nemesis) is not a clock event: it
// emulates a step by rewriting key TTLs, and is recorded in the history
// as a fault.
package clockwatch

import (
	"context"
	"fmt"
	"time"
)

// Source is where the watch reads the machine's clocks. System is the
// machine's; tests give a fake one to step a wall clock without touching
// the machine's.
type Source interface {
	// Wall reads the wall clock (no monotonic reading).
	Wall() time.Time
	// Mono reads the monotonic clock: time since an arbitrary origin.
	Mono() time.Duration
}

// NodeClock reads a node's clock: its TIME.
type NodeClock func(ctx context.Context) (time.Time, error)

// Options is what a watch samples and what it tolerates.
type Options struct {
	// Source is the machine's clocks; nil is System.
	Source Source
	// Nodes are the nodes' clocks, by node name; none is fine.
	Nodes map[string]NodeClock
	// Every is the time between two samples (default 50 ms).
	Every time.Duration
	// Lookback is how far back a sample is compared with earlier ones: how
	// long a change must build up over to be tolerated whatever its size,
	// the TTL (a lease's validity rests on the clock over no more than
	// that). Required.
	Lookback time.Duration
	// Allowance is the largest change of an offset within Lookback that is
	// not an event: the run's drift allowance. Required.
	Allowance time.Duration
}

// Event is a change of a clock's offset from the monotonic clock larger
// than the allowance within Options.Lookback.
type Event struct {
	// Clock is "wall" (the machine's wall clock) or a node's name.
	Clock string `json:"clock"`
	// At is when the change was seen, since the watch started, ns.
	At time.Duration `json:"at_ns"`
	// Step is the change of the offset: positive when the clock ran
	// ahead of the monotonic clock (keys expire early), ns.
	Step time.Duration `json:"step_ns"`
	// Over is the monotonic time the change built up over (at most the
	// lookback), ns.
	Over time.Duration `json:"over_ns"`
	// Allowance is the run's drift allowance the step exceeded, ns.
	Allowance time.Duration `json:"allowance_ns"`
}

// String says what happened in one line.
func (e Event) String() string {
	who := "the wall clock"
	if e.Clock != "wall" {
		who = "node " + e.Clock + "'s clock"
	}
	dir := "ahead"
	if e.Step < 0 {
		dir = "back"
	}
	return fmt.Sprintf("%s moved %v %s of the monotonic clock within %v at %.3fs (drift allowance %v)",
		who, e.Step.Abs().Round(time.Millisecond), dir, e.Over.Round(time.Millisecond), e.At.Seconds(), e.Allowance)
}

// System is the machine's clocks.
var System Source = systemClock{start: time.Now()}

type systemClock struct{ start time.Time }

func (systemClock) Wall() time.Time       { return time.Now().Round(0) }
func (s systemClock) Mono() time.Duration { return time.Since(s.start) }
