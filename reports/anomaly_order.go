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
	fatalFirst(out, func(a checkedAnomaly) bool { return a.Fatal })
	return out
}

// fatalFirst moves the fatal elements of xs before the others, keeping
// the order within each group.
func fatalFirst[T any](xs []T, fatal func(T) bool) {
	slices.SortStableFunc(xs, func(a, b T) int {
		switch fa, fb := fatal(a), fatal(b); {
		case fa && !fb:
			return -1
		case fb && !fa:
			return 1
		}
		return 0
	})
}

// firstFatalAnomaly is the first fatal anomaly of v in that order; ok is
// false when there is none.
func firstFatalAnomaly(v checker.Result) (a checkedAnomaly, ok bool) {
	if as := orderedAnomalies(v); len(as) > 0 && as[0].Fatal {
		return as[0], true
	}
	return a, false
}
