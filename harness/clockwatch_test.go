package harness

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// wallStepped is the machine's clocks with the wall clock stepped forward
// by step from the monotonic time at on: what a virtual machine fork did
// here, emulated without touching the machine's clock. Its time counts
// from the clock watch's first reading, not from the test's start: a
// setup slower than at (beside busy loops) would otherwise put the step
// before the watch's first sample, where no watch can see it.
type wallStepped struct {
	once     sync.Once
	origin   time.Time
	at, step time.Duration
}

func (c *wallStepped) Mono() time.Duration {
	c.once.Do(func() { c.origin = time.Now() })
	return time.Since(c.origin)
}

func (c *wallStepped) Wall() time.Time {
	if c.Mono() >= c.at {
		return time.Now().Round(0).Add(c.step)
	}
	return time.Now().Round(0)
}

// A run whose wall clock stepped has no verdict: unknown, naming the
// step, and test.json keeps the event for analyze (TestShortRun's run,
// without a step, has no event).
func TestClockStepMakesTheRunUnknown(t *testing.T) {
	clockSource = &wallStepped{at: 500 * time.Millisecond, step: 630 * time.Millisecond}
	t.Cleanup(func() { clockSource = nil })
	res := shortRun(t, t.TempDir())
	clockSource = nil
	if res.Verdict.Valid != checker.Unknown || !strings.Contains(res.Verdict.Error, "wall clock moved 630ms ahead") {
		t.Fatalf("verdict %s (%s), want unknown naming the 630ms step", res.Verdict.Valid, res.Verdict.Error)
	}
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); len(tf.ClockEvents) != 1 || tf.ClockEvents[0].Clock != "wall" {
		t.Fatalf("test.json clock events: %s", b)
	}
	again, _, err := analysis.Analyze(context.Background(), res.Dir)
	if err != nil || again.Verdict.Valid != checker.Unknown {
		t.Fatalf("analyze of the stored run: %v %v", again, err)
	}
}
