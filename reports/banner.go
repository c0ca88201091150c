package reports

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/internal/page"
)

// bannerLine is the line under the verdict saying what it rests on: for
// a valid run what was exercised ("3 of 3 faults hit a holder · 93
// leases, 0 overlaps within validity · counter exact 93/93"), for an
// invalid one its first fatal anomaly, for an unknown one "".
func bannerLine(res *analysis.Result) string {
	switch res.Verdict.Valid {
	case checker.Invalid:
		a, ok := firstFatalAnomaly(res.Verdict)
		if !ok {
			return ""
		}
		return fmt.Sprintf("first fatal anomaly: %s (%s checker) at %s %s", a.Kind, a.Checker,
			page.Plural(len(a.Ops), "op", "ops"), indexList(a.Ops, 4))
	case checker.Valid:
		return strings.Join(provenParts(res), " · ")
	}
	return ""
}

// provenParts are the parts of a valid run's banner line, in this order:
// the faults, the leases, the counter, the stale writes rejected.
func provenParts(res *analysis.Result) []string {
	var leases, counter, fenced string
	for _, r := range checkerParts(res.Verdict) {
		switch d := r.Details.(type) {
		case checker.ExclusionDetails:
			leases = fmt.Sprintf("%s, %s within validity", page.Count(d.Leases, "lease", "leases"), page.Count(d.Overlaps, "overlap", "overlaps"))
		case checker.ResourceDetails:
			counter = counterPart(d)
		case checker.FencingStats:
			if n := d.Rejected + d.ReadsRejected; r.NotApplicable == "" && n > 0 {
				fenced = page.Count(n, "stale write rejected", "stale writes rejected")
			}
		}
	}
	var parts []string
	for _, p := range []string{faultsPart(res.Coverage), leases, counter, fenced} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// faultsPart is "3 of 3 faults hit a holder" ("no faults" for a run
// without any; "" when the coverage cannot say).
func faultsPart(c *coverage.Report) string {
	if c == nil {
		return "no faults"
	}
	if c.Unjudged != "" {
		return ""
	}
	var applied, holder, waiter int
	for _, k := range c.Kinds {
		applied += k.Applied
		holder += k.TouchedHolder
		waiter += k.Exercised - k.TouchedHolder
	}
	s := fmt.Sprintf("%d of %s hit a holder", holder, page.Count(applied, "fault", "faults"))
	if waiter > 0 {
		s += fmt.Sprintf(", %d more a waiter", waiter)
	}
	return s
}

// counterPart is "counter exact 93/93" (acknowledged increments less the
// updates lost, over the acknowledged); "" without a counter or when a
// final value is unknown.
func counterPart(d checker.ResourceDetails) string {
	if len(d.Counter) == 0 {
		return ""
	}
	var acked int
	var lost int64
	for _, c := range d.Counter {
		if c.Lost < 0 {
			return ""
		}
		acked += c.Acked
		lost += c.Lost
	}
	word := "exact"
	if lost > 0 {
		word = "lost updates"
	}
	return fmt.Sprintf("counter %s %d/%d", word, int64(acked)-lost, acked)
}
