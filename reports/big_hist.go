package reports

import "math"

// latencyHist is one operation type's latencies per time bucket as
// histograms of log-spaced bins (each quantileBinRatio wide) over the
// type's latency range, plus each bucket's exact maximum: a big
// history's latency-quantiles.png, in memory bounded by buckets x bins.
type latencyHist struct {
	width  int64 // bucket width, ns
	lo     float64
	nbins  int
	bins   [][]int32 // per bucket (nil: empty), per bin
	n      []int
	lowest []float64 // per bucket, exact
	top    []float64 // per bucket, exact
}

// newLatencyHist covers latencies lo..hi ms over a run of length end ns
// in buckets of width ns.
func newLatencyHist(end, width int64, lo, hi float64) *latencyHist {
	nb := end/width + 1
	lo = max(lo, minLatencyMs)
	hi = max(hi, lo)
	bins := int(math.Ceil(math.Log(hi/lo)/math.Log(quantileBinRatio))) + 1
	return &latencyHist{width: width, lo: lo, nbins: bins, bins: make([][]int32, nb), n: make([]int, nb),
		lowest: make([]float64, nb), top: make([]float64, nb)}
}

// add counts a latency of ms at invoke time t (ns).
func (l *latencyHist) add(t int64, ms float64) {
	b := bucketOf(t, l.width, int64(len(l.bins)))
	if l.bins[b] == nil {
		l.bins[b] = make([]int32, l.nbins)
		l.lowest[b], l.top[b] = ms, ms
	}
	k := int(math.Log(max(ms, l.lo)/l.lo) / math.Log(quantileBinRatio))
	l.bins[b][min(max(k, 0), l.nbins-1)]++
	l.n[b]++
	l.lowest[b], l.top[b] = min(l.lowest[b], ms), max(l.top[b], ms)
}

// at is the q-quantile (nearest rank, as quantile) of bucket b: the
// geometric middle of the bin holding that rank, within the bucket's
// exact minimum and maximum; q = 1 is the exact maximum. false for an
// empty bucket.
func (l *latencyHist) at(b int, q float64) (float64, bool) {
	if l.n[b] == 0 {
		return 0, false
	}
	if q >= 1 {
		return l.top[b], true
	}
	rank := max(int(math.Ceil(q*float64(l.n[b])))-1, 0)
	seen := 0
	for k, c := range l.bins[b] {
		seen += int(c)
		if seen > rank {
			v := l.lo * math.Pow(quantileBinRatio, float64(k)+0.5)
			return min(max(v, l.lowest[b]), l.top[b]), true
		}
	}
	return l.top[b], true
}
