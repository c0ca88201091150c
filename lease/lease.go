// Package lease is what every part of lockstorm shares about a lease:
// the default TTL, the clock-drift allowance (Redlock's 2 ms plus 1% of
// the TTL), and the lease model (Lease, followed by a Tracker).
package lease

import (
	"math"
	"time"
)

// DefaultTTL is the lease time-to-live used when none is given.
const DefaultTTL = time.Second

// Redlock's clock-drift assumption: a lease granted for ttl is believed
// valid for ttl − (FixedDrift + DriftFactor·ttl) after its command was
// sent.
const (
	FixedDrift  = 2 * time.Millisecond
	DriftFactor = 0.01
)

// Allowance is fixed + ⌈factor·ttl⌉ (a negative factor counts as zero),
// at most ttl.
func Allowance(ttl, fixed time.Duration, factor float64) time.Duration {
	a := fixed + time.Duration(math.Ceil(max(factor, 0)*float64(ttl)))
	return min(a, max(ttl, 0))
}
