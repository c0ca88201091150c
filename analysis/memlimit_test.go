package analysis

import (
	"math"
	"runtime/debug"
	"testing"
)

// A history whose limit is above the minimum turns the collector's
// percentage off until restored; a small one keeps it.
func TestLimitMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		n       int
		limit   int64
		percent int
	}{{1000, minCheckMemory, 100}, {20_000_000, 20_000_000 * checkBytesPerRecord, -1}} {
		restore := limitMemory(c.n, checkBytesPerRecord)
		limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
		debug.SetGCPercent(percent)
		restore()
		if limit != c.limit || percent != c.percent {
			t.Errorf("%d records: limit %d, GC percent %d; want %d, %d", c.n, limit, percent, c.limit, c.percent)
		}
		if limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100); limit != math.MaxInt64 || percent != 100 {
			t.Errorf("%d records: restored to limit %d, GC percent %d", c.n, limit, percent)
		}
	}
}
