package harness

import (
	"slices"
	"testing"
	"time"
)

// Each client slot's lock jitter follows from the run's seed and the slot:
// the same seed and slot draw the same delays, another slot or seed others.
func TestSlotJitterFollowsSeed(t *testing.T) {
	draw := func(seed int64, i int) []time.Duration {
		j := slotJitter(seed, i)
		out := make([]time.Duration, 30)
		for k := range out {
			out[k] = j.N(time.Second)
		}
		return out
	}
	if !slices.Equal(draw(5, 1), draw(5, 1)) {
		t.Fatal("slot 1 drew different delays in two runs with seed 5")
	}
	if slices.Equal(draw(5, 1), draw(5, 2)) || slices.Equal(draw(5, 1), draw(6, 1)) {
		t.Fatal("another slot or seed drew the same delays")
	}
}
