package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Progress is a snapshot of a run in progress, for a progress bar or log.
type Progress struct {
	Elapsed   time.Duration
	TimeLimit time.Duration
	// Ops is the number of history records so far.
	Ops int
	// Faults are the faults active now, e.g. "partition", "client-pause".
	Faults []string
	// Violations counts the violations the live counter found so far
	// (analysis.LiveCounter), ViolationKinds by kind (nil when 0).
	Violations     int
	ViolationKinds map[string]int
	// Done is true for the last snapshot.
	Done bool
}

// String is a one-line summary for plain logs.
func (p Progress) String() string {
	faults := "none"
	if len(p.Faults) > 0 {
		faults = fmt.Sprint(p.Faults)
	}
	return fmt.Sprintf("%5.1fs/%v  ops %d  faults %s  violations so far %d%s",
		p.Elapsed.Seconds(), p.TimeLimit, p.Ops, faults, p.Violations, p.KindsText())
}

// KindsText is " (lost-update 2, overlap 1)", or "" when no violation.
func (p Progress) KindsText() string {
	if len(p.ViolationKinds) == 0 {
		return ""
	}
	kinds := slices.Sorted(maps.Keys(p.ViolationKinds))
	for i, k := range kinds {
		kinds[i] = fmt.Sprintf("%s %d", k, p.ViolationKinds[k])
	}
	return " (" + strings.Join(kinds, ", ") + ")"
}
