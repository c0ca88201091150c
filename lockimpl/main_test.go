package lockimpl_test

import (
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
)

// One local cluster for the whole package (see locktest).
func TestMain(m *testing.M) { locktest.Main(m, "lockimpl") }

// correct lists the built-in locks that must provide mutual exclusion.
var correct = []string{"single", "renewable", "redlock", "fair", "fenced", "fenced-redlock"}

// The contract every correct lock keeps (the adapters run it too).
func TestMutualExclusion(t *testing.T) { locktest.MutualExclusion(t, correct) }

// A release after the lease passed to another holder is ErrNotHeld; the
// broken unsafe-getdel gets this one right.
func TestReleaseNotHeld(t *testing.T) {
	locktest.ReleaseNotHeld(t, append(correct, "unsafe-getdel"))
}

func TestExtend(t *testing.T) {
	locktest.Extend(t, []string{"single", "redlock", "fair", "fenced", "fenced-redlock"})
}

func TestUnknownOutcome(t *testing.T) {
	locktest.UnknownOutcome(t, []string{"single", "fenced", "fair"})
}

// Fencing tokens strictly increase in grant order.
func TestFencingMonotonic(t *testing.T) {
	locktest.FencesIncrease(t, []string{"fenced", "fenced-redlock"})
}
