// Package lease is the one home of what the locks, the checkers, the
// nemesis, the harness and the report share about a lease: the default
// time-to-live, the clock-drift allowance a lease's validity must leave
// (Redlock's rule: 2 ms plus 1% of the TTL), and the lease model (Lease,
// followed record by record by a Tracker). Change a rule here and every
// part of lockstorm follows. It uses history and the standard library
// only.
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
