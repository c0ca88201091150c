package clockwatch

import (
	"context"
	"errors"
	"time"
)

// maxEvents is how many events a watch keeps per clock; a clock that
// keeps stepping is named by its first steps, and the rest are counted.
const maxEvents = 10

// Watch samples the clocks until stopped.
type Watch struct {
	opt    Options
	cancel context.CancelFunc
	done   chan struct{}
	start  time.Duration
	tracks map[string]*track

	events  []Event
	dropped int
}

// Start starts a watch; Stop ends it and returns its events.
func Start(ctx context.Context, o Options) (*Watch, error) {
	if o.Lookback <= 0 || o.Allowance <= 0 {
		return nil, errors.New("clockwatch: a lookback and an allowance are required")
	}
	if o.Source == nil {
		o.Source = System
	}
	if o.Every <= 0 {
		o.Every = 50 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watch{opt: o, cancel: cancel, done: make(chan struct{}), start: o.Source.Mono(),
		tracks: map[string]*track{"wall": {name: "wall"}}}
	for n := range o.Nodes {
		w.tracks[n] = &track{name: n}
	}
	go w.loop(ctx)
	return w, nil
}

// Stop ends the watch (after its sample in flight) and returns the
// events seen, in the order seen, and how many more were not kept.
func (w *Watch) Stop() ([]Event, int) {
	w.cancel()
	<-w.done
	return w.events, w.dropped
}

func (w *Watch) loop(ctx context.Context) {
	defer close(w.done)
	t := time.NewTicker(w.opt.Every)
	defer t.Stop()
	for {
		w.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sample reads every clock once.
func (w *Watch) sample(ctx context.Context) {
	src := w.opt.Source
	m0 := src.Mono()
	wall := src.Wall()
	m1 := src.Mono()
	w.add("wall", offsetOf(wall, m0, m1))
	for name, clock := range w.opt.Nodes {
		// A reply slower than the allowance cannot place the node's
		// clock closely enough to judge it: no sample.
		cctx, cancel := context.WithTimeout(ctx, w.opt.Allowance)
		m0 := src.Mono()
		nt, err := clock(cctx)
		m1 := src.Mono()
		cancel()
		if err == nil && m1-m0 <= w.opt.Allowance {
			w.add(name, offsetOf(nt, m0, m1))
		}
	}
}

// offsetOf is the sample of a clock read as t between the monotonic
// readings m0 and m1: its offset from the monotonic clock, placed at the
// midpoint, uncertain by half the span.
func offsetOf(t time.Time, m0, m1 time.Duration) sample {
	mid := m0 + (m1-m0)/2
	return sample{mono: mid, off: time.Duration(t.UnixNano()) - mid, err: (m1 - m0 + 1) / 2}
}

func (w *Watch) add(clock string, s sample) {
	e, ok := w.tracks[clock].add(s, w.opt.Lookback, w.opt.Allowance)
	if !ok {
		return
	}
	e.At -= w.start
	n := 0
	for _, k := range w.events {
		if k.Clock == clock {
			n++
		}
	}
	if n >= maxEvents {
		w.dropped++
		return
	}
	w.events = append(w.events, e)
}
