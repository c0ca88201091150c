package reports

import (
	"math"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// evilHistory is a small lock + counter history whose times are shifted
// by off and scaled by mul (ns), with fencing tokens from fence.
func evilHistory(times []int64, fence int64) history.History {
	recs := []history.Op{
		{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "partition"},
		{Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: int64(time.Second)},
		{Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "a", Fence: fence, TTL: int64(time.Second), Validity: 1},
		{Type: history.Invoke, Process: 0, F: history.FWrite, Key: "c", Value: 1, Fence: fence},
		{Type: history.OK, Process: 0, F: history.FWrite, Key: "c", Value: 1, Fence: fence},
		{Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k", TTL: int64(time.Second)},
		{Type: history.OK, Process: 1, F: history.FAcquire, Key: "k", Token: "b", Fence: fence + 1, TTL: int64(time.Second)},
		{Type: history.Invoke, Process: 1, F: history.FWrite, Key: "c", Value: 1, Fence: fence + 1},
		{Type: history.OK, Process: 1, F: history.FWrite, Key: "c", Value: 1, Fence: fence + 1},
		{Type: history.Invoke, Process: 0, F: history.FRelease, Key: "k", Token: "a"},
		{Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "partition"},
		{Type: history.Invoke, Process: 2, F: history.FAcquire, Key: "k"},
	}
	for i := range recs {
		recs[i].Index = int64(i)
		recs[i].Time = times[i%len(times)]
	}
	return recs
}

// Histories a checker refuses (negative times, completions before their
// invokes, times near the int64 limit, huge spans, fencing tokens above
// 2^53) must still give plots: quickly, and without a panic.
func TestPlotsSurviveMalformedTimes(t *testing.T) {
	const big = math.MaxInt64
	cases := map[string]struct {
		times []int64
		fence int64
	}{
		"negative":               {[]int64{-5e9, -4e9, -3e9, -2e9, -1e9}, 1},
		"completion before call": {[]int64{9e9, 1e9, 8e9, 2e9, 7e9, 3e9}, 1},
		"near the int64 limit":   {[]int64{big - 100, big - 50, big - 10, big}, 1},
		"huge span":              {[]int64{0, big / 2, 1e9, big}, 1},
		"min int64":              {[]int64{math.MinInt64, 0, math.MinInt64 + 1, big}, 1},
		"fence above 2^53":       {[]int64{0, 1e9, 2e9, 3e9}, 1<<60 + 1},
		"fence near the limit":   {[]int64{0, 1e9, 2e9, 3e9}, big - 1},
		"all zero":               {[]int64{0}, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := evilHistory(tc.times, tc.fence)
			ws := checker.FaultWindows(h)
			end := endTime(h)
			for _, w := range ws {
				end = max(end, w.End)
			}
			writes := []resource.Write{{Key: "c", Value: 1, Fence: tc.fence, Accepted: true, Time: tc.times[0]},
				{Key: "c", Value: 1, Fence: tc.fence - 1, Accepted: true, Stale: true, Time: tc.times[len(tc.times)-1]}}
			draws := map[string]func() ([]byte, error){
				"holders":   func() ([]byte, error) { return holdersPNG(h, nil, nil, ws, end, 2) },
				"raw":       func() ([]byte, error) { return latencyRaw(logOf(h), ws, end) },
				"quantiles": func() ([]byte, error) { return latencyQuantiles(logOf(h), ws, end) },
				"rate":      func() ([]byte, error) { return rate(logOf(h), ws, end) },
				"fencing":   func() ([]byte, error) { return fencingPNG(t, h, writes, ws, end) },
				"fencing-h": func() ([]byte, error) { return fencingPNG(t, h, nil, ws, end) },
			}
			for plot, draw := range draws {
				start := time.Now()
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("%s panicked: %v", plot, p)
						}
					}()
					if _, err := draw(); err != nil {
						t.Logf("%s: %v", plot, err)
					}
				}()
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%s took %v", plot, d)
				}
			}
		})
	}
}
