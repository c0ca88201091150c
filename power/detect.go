package power

import (
	"cmp"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// DetectionTime is when a run's violation became detectable: for each
// fatal anomaly of r (composed results included), the moment its evidence
// is complete — the latest Time among its ops' records — and the earliest
// of those over all fatal anomalies. Times are since the run started. ok
// is false when r has no fatal anomaly whose ops all lie in h (no ops, or
// indices past a truncated history): the time is then not known, which is
// not the same as not detected.
//
// Checkers keep at most checker.MaxAnomalies anomalies per kind, so for a
// run with more the time is that of the earliest kept one (an upper
// bound).
func DetectionTime(r checker.Result, h history.History) (d time.Duration, ok bool) {
	best := int64(-1)
	walkFatal(r, func(a checker.Anomaly) {
		t, found := completeAt(a, h)
		if found && (best < 0 || t < best) {
			best = t
		}
	})
	if best < 0 {
		return 0, false
	}
	return time.Duration(best), true
}

// completeAt is the latest Time among a's ops, false when a has no ops or
// one of them is not a record of h.
func completeAt(a checker.Anomaly, h history.History) (int64, bool) {
	if len(a.Ops) == 0 {
		return 0, false
	}
	latest := int64(-1)
	for _, i := range a.Ops {
		t, ok := timeOf(h, i)
		if !ok {
			return 0, false
		}
		latest = max(latest, t)
	}
	return latest, true
}

// timeOf is the Time of h's record with Index i. Records are in index
// order, normally numbered from 0 (h[i].Index == i).
func timeOf(h history.History, i int64) (int64, bool) {
	if i >= 0 && i < int64(len(h)) && h[i].Index == i {
		return h[i].Time, true
	}
	j, found := slices.BinarySearchFunc(h, i, func(o history.Op, i int64) int { return cmp.Compare(o.Index, i) })
	if !found {
		return 0, false
	}
	return h[j].Time, true
}

// walkFatal calls f for every fatal anomaly of r and of its parts.
func walkFatal(r checker.Result, f func(checker.Anomaly)) {
	for _, a := range r.Anomalies {
		if a.Fatal {
			f(a)
		}
	}
	for _, p := range r.Results {
		walkFatal(p, f)
	}
}
