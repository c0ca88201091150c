package lease

import (
	"testing"
	"time"
)

func TestAllowance(t *testing.T) {
	for _, c := range []struct {
		ttl, fixed time.Duration
		factor     float64
		want       time.Duration
	}{
		{time.Second, FixedDrift, DriftFactor, 12 * time.Millisecond},
		{100 * time.Millisecond, FixedDrift, DriftFactor, 3 * time.Millisecond},
		{333, 0, 0.01, 4},       // ⌈3.33⌉ ns
		{time.Second, 0, -1, 0}, // a negative factor is no factor
		{time.Millisecond, FixedDrift, 0, time.Millisecond}, // capped at the TTL
	} {
		if got := Allowance(c.ttl, c.fixed, c.factor); got != c.want {
			t.Errorf("Allowance(%v, %v, %v) = %v, want %v", c.ttl, c.fixed, c.factor, got, c.want)
		}
	}
}
