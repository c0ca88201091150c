package analysis

import (
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// Campaign is the outcome of repeated runs of one configuration.
type Campaign struct {
	// Base is the seed the runs' seeds derive from (RunSeed).
	Base int64
	// Planned is the number of runs asked for; Runs those that ran, in
	// order (fewer after --until-invalid or an interrupt).
	Planned int
	Runs    []*Result
	// Interrupted is true when ctx ended before the campaign finished:
	// the run under way was stopped (and healed) and no further run
	// started.
	Interrupted bool
	// StoppedEarly is true when UntilInvalid stopped the campaign at its
	// first invalid run.
	StoppedEarly bool
	// Verdict is Aggregate over the runs.
	Verdict checker.Validity
	// Shard is the campaign's share when sharded (Hooks.Shard): Planned
	// then counts the shard's runs, Total the whole campaign's, and
	// Numbers the campaign run number (1-based) of each of Runs (nil: 1,
	// 2, ...; see Number).
	Shard   shard.Shard
	Total   int
	Numbers []int
}

// Count is how many runs had verdict v.
func (c *Campaign) Count(v checker.Validity) int {
	n := 0
	for _, r := range c.Runs {
		if r.Verdict.Valid == v {
			n++
		}
	}
	return n
}

// Aggregate is a campaign's verdict: invalid if any run is invalid, else
// unknown if any run is unknown or the campaign was interrupted (or ran
// no run at all), else valid. A campaign cut short is never valid.
func Aggregate(verdicts []checker.Validity, interrupted bool) checker.Validity {
	out := checker.Valid
	if interrupted || len(verdicts) == 0 {
		out = checker.Unknown
	}
	for _, v := range verdicts {
		switch v {
		case checker.Invalid:
			return checker.Invalid
		case checker.Valid:
		default:
			out = checker.Unknown
		}
	}
	return out
}

// Aggregate is Aggregate over the campaign's runs.
func (c *Campaign) Aggregate() checker.Validity {
	vs := make([]checker.Validity, len(c.Runs))
	for i, r := range c.Runs {
		vs[i] = r.Verdict.Valid
	}
	return Aggregate(vs, c.Interrupted)
}

// Number is the campaign's run number (1-based) of c.Runs[j].
func (c *Campaign) Number(j int) int {
	if j < len(c.Numbers) {
		return c.Numbers[j]
	}
	return j + 1
}
