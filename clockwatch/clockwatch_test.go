package clockwatch

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// steppedClock is the machine's clocks with the wall clock stepped by
// step once after the monotonic time at.
type steppedClock struct {
	mu       sync.Mutex
	at, step time.Duration
	origin   time.Time
}

func (c *steppedClock) Mono() time.Duration { return time.Since(c.origin) }

func (c *steppedClock) Wall() time.Time {
	w := time.Now().Round(0)
	if c.Mono() >= c.at {
		w = w.Add(c.step)
	}
	return w
}

func TestTrackFlagsAStepOnce(t *testing.T) {
	var tr track
	tr.name = "wall"
	ms := time.Millisecond
	var events []Event
	for i := 0; i < 100; i++ {
		off := time.Duration(0)
		if i >= 50 {
			off = 630 * ms // a step at sample 50
		}
		if e, ok := tr.add(sample{mono: time.Duration(i) * 10 * ms, off: off, err: 50 * time.Microsecond}, 500*ms, 7*ms); ok {
			events = append(events, e)
		}
	}
	if len(events) != 1 {
		t.Fatalf("events = %v, want one", events)
	}
	if e := events[0]; e.Step != 630*ms || e.At != 500*ms || e.Over != 10*ms {
		t.Fatalf("event = %+v, want a 630ms step at 500ms over 10ms", e)
	}
}

func TestTrackToleratesDriftWithinTheAllowance(t *testing.T) {
	var tr track
	ms := time.Millisecond
	// 173 ms a minute ahead (seen on a VM here): 1.4 ms per 500 ms TTL,
	// inside a 7 ms allowance; the offset grows by 58 ms over 20 s.
	for i := 0; i < 2000; i++ {
		mono := time.Duration(i) * 10 * ms
		off := time.Duration(float64(mono) * 173 / 60000)
		if e, ok := tr.add(sample{mono: mono, off: off}, 500*ms, 7*ms); ok {
			t.Fatalf("drift within the allowance flagged: %v", e)
		}
	}
	// A backward step is an event too.
	e, ok := tr.add(sample{mono: 20 * time.Second, off: -time.Second}, 500*ms, 7*ms)
	if !ok || e.Step > -time.Second || !strings.Contains(e.String(), "back") {
		t.Fatalf("backward step: %v %v", e, ok)
	}
}

func TestWatchSeesAWallStepAndANodeStep(t *testing.T) {
	src := &steppedClock{origin: time.Now(), at: 150 * time.Millisecond, step: 600 * time.Millisecond}
	var mu sync.Mutex
	calls := 0
	node := func(context.Context) (time.Time, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls > 5 {
			return time.Now().Add(-time.Second), nil // n1's clock steps back 1 s
		}
		return time.Now(), nil
	}
	steady := func(context.Context) (time.Time, error) { return time.Now(), nil }
	w, err := Start(context.Background(), Options{Source: src, Every: 10 * time.Millisecond, Lookback: 500 * time.Millisecond,
		Allowance: 7 * time.Millisecond, Nodes: map[string]NodeClock{"n1": node, "n2": steady}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	events, dropped := w.Stop()
	got := map[string]Event{}
	for _, e := range events {
		if _, dup := got[e.Clock]; dup {
			t.Fatalf("two events for %s: %v", e.Clock, events)
		}
		got[e.Clock] = e
	}
	if len(got) != 2 || dropped != 0 {
		t.Fatalf("events = %v (dropped %d), want one for wall and one for n1", events, dropped)
	}
	if s := got["wall"].Step; s < 590*time.Millisecond || s > 610*time.Millisecond {
		t.Fatalf("wall step = %v, want about 600ms", s)
	}
	if s := got["n1"].Step; s > -990*time.Millisecond || s < -1010*time.Millisecond {
		t.Fatalf("n1 step = %v, want about -1s", s)
	}
	if !strings.Contains(got["n1"].String(), "node n1's clock moved 1s back") {
		t.Fatalf("n1 event text: %s", got["n1"])
	}
}

func TestStartRefusesNoAllowance(t *testing.T) {
	if _, err := Start(context.Background(), Options{Lookback: time.Second}); err == nil {
		t.Fatal("no allowance accepted")
	}
}
