// Package lease is the one home of the timing facts that the locks, the
// checkers, the nemesis and the harness share about a lease: the default
// time-to-live and the clock-drift allowance a lease's validity must
// leave (Redlock's rule: 2 ms plus 1% of the TTL). Change a default here
// and every part of lockstorm follows.
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
	// FixedDrift is the constant part of the drift allowance.
	FixedDrift = 2 * time.Millisecond
	// DriftFactor is the part of the allowance proportional to the TTL.
	DriftFactor = 0.01
)

// Allowance is the drift allowance of a lease of ttl: fixed + ⌈factor·ttl⌉
// (a negative factor counts as zero), at most ttl, so that a validity
// never ends before its command was sent.
func Allowance(ttl, fixed time.Duration, factor float64) time.Duration {
	a := fixed + time.Duration(math.Ceil(max(factor, 0)*float64(ttl)))
	return min(a, max(ttl, 0))
}
