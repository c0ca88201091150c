package power

import (
	"math"
	"slices"
	"time"
)

// Median is the middle of ds (the mean of the two middle values for an
// even count); ok is false for no values.
func Median(ds []time.Duration) (m time.Duration, ok bool) {
	if len(ds) == 0 {
		return 0, false
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return s[n/2-1] + (s[n/2]-s[n/2-1])/2, true
}

// Percentile is the nearest-rank p-quantile of ds (0 < p <= 1): the
// smallest value with at least p·len(ds) values at or below it; ok is
// false for no values.
func Percentile(ds []time.Duration, p float64) (v time.Duration, ok bool) {
	if len(ds) == 0 {
		return 0, false
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(rank, 0), len(s)-1)], true
}
