package power

import (
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// DetectionTime is when a run's violation became detectable: for each
// fatal anomaly of r (composed results included), the moment its evidence
// is complete — the latest Time among its ops' records — and the earliest
// of those over all fatal anomalies. Times are since the run started. The
// records are read from src, streamed, until every op named is found. ok
// is false when r has no fatal anomaly whose ops all lie in src (no ops,
// or indices past a truncated history): the time is then not known, which
// is not the same as not detected.
//
// Checkers keep at most checker.MaxAnomalies anomalies per kind, so for a
// run with more the time is that of the earliest kept one (an upper
// bound).
func DetectionTime(r checker.Result, src history.Source) (d time.Duration, ok bool) {
	var fatal []checker.Anomaly
	walkFatal(r, func(a checker.Anomaly) {
		if len(a.Ops) > 0 {
			fatal = append(fatal, a)
		}
	})
	times := opTimes(src, fatal)
	best := int64(-1)
	for _, a := range fatal {
		if t, found := completeAt(a, times); found && (best < 0 || t < best) {
			best = t
		}
	}
	if best < 0 {
		return 0, false
	}
	return time.Duration(best), true
}

// opTimes reads from src the Time of every record the anomalies name, by
// its Index, stopping once all are found; a history that cannot be read
// (nil, damaged) gives the times read before.
func opTimes(src history.Source, as []checker.Anomaly) map[int64]int64 {
	times, want := map[int64]int64{}, map[int64]bool{}
	for _, a := range as {
		for _, i := range a.Ops {
			want[i] = true
		}
	}
	if len(want) == 0 {
		return times
	}
	_ = history.Each(src, func(o *history.Op) bool {
		if want[o.Index] {
			times[o.Index] = o.Time
		}
		return len(times) < len(want)
	})
	return times
}

// completeAt is the latest Time among a's ops, false when one of them is
// not in times.
func completeAt(a checker.Anomaly, times map[int64]int64) (int64, bool) {
	latest := int64(-1)
	for _, i := range a.Ops {
		t, ok := times[i]
		if !ok {
			return 0, false
		}
		latest = max(latest, t)
	}
	return latest, true
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
