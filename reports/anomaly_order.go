package reports

import (
	"slices"

	"github.com/lockstorm/lockstorm/checker"
)

// checkedAnomaly is an anomaly with the name of the checker that found it.
type checkedAnomaly struct {
	Checker string
	checker.Anomaly
}

// orderedAnomalies are the anomalies of v's checkers (v's own when it has
// no parts) in the one order every report lists them (the page's
// anomaly cards, the terminal summary, the JUnit text, the banner's first
// fatal anomaly): the fatal ones first, then the others; within each,
// in the checkers' order and each checker's own order.
func orderedAnomalies(v checker.Result) []checkedAnomaly {
	var out []checkedAnomaly
	for _, r := range checkerParts(v) {
		for _, a := range r.Anomalies {
			out = append(out, checkedAnomaly{Checker: r.Name, Anomaly: a})
		}
	}
	slices.SortStableFunc(out, func(a, b checkedAnomaly) int { return oneIf(b.Fatal) - oneIf(a.Fatal) })
	return out
}

// oneIf is 1 when cond holds, else 0 (to sort by a condition).
func oneIf(cond bool) int {
	if cond {
		return 1
	}
	return 0
}

// firstFatalAnomaly is the first fatal anomaly of v in that order; ok is
// false when there is none.
func firstFatalAnomaly(v checker.Result) (a checkedAnomaly, ok bool) {
	if as := orderedAnomalies(v); len(as) > 0 && as[0].Fatal {
		return as[0], true
	}
	return a, false
}
