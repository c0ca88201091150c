package clockwatch

import "time"

// sample is one reading of a clock: its offset from the monotonic clock
// (ns) at the monotonic time mono, uncertain by ±err.
type sample struct {
	mono, off, err time.Duration
}

// track is one clock's samples within the lookback (Options.Lookback).
type track struct {
	name   string
	recent []sample
}

// add takes a sample and says whether the clock's offset moved by more
// than the allowance (plus the samples' uncertainty) from any sample
// within the lookback: an event, its largest such move (over the shortest
// time, among equal moves). After an event the
// new offset is the clock's baseline, so one step is one event.
func (t *track) add(s sample, lookback, allowance time.Duration) (Event, bool) {
	keep := t.recent[:0]
	for _, r := range t.recent {
		if s.mono-r.mono <= lookback {
			keep = append(keep, r)
		}
	}
	t.recent = keep
	var worst Event
	found := false
	for _, r := range t.recent {
		d := s.off - r.off
		if d.Abs() > allowance+s.err+r.err && (!found || d.Abs() >= worst.Step.Abs()) {
			worst = Event{Clock: t.name, At: s.mono, Step: d, Over: s.mono - r.mono, Allowance: allowance}
			found = true
		}
	}
	if found {
		t.recent = t.recent[:0]
	}
	t.recent = append(t.recent, s)
	return worst, found
}
