package analysis

import (
	"math"
	"os"
	"runtime/debug"
)

// The soft memory limit of a streamed check (see limitMemory).
const (
	// minCheckMemory is the least limit: 512 MiB.
	minCheckMemory = 512 << 20
	// checkBytesPerRecord is the limit per record: about 1.7 times the
	// 28 bytes the check and the coverage hold per record, so that the
	// collector keeps headroom instead of running without pause.
	checkBytesPerRecord = 48
	// rideBytesPerRecord is added when the report's pass rides on the
	// check's read (AnalyzeWith): about 1.5 times the 22 bytes per record
	// it holds (its plots' per-record data, its lease follower).
	rideBytesPerRecord = 32
)

// limitMemory sets a soft memory limit (runtime/debug.SetMemoryLimit) for
// the check of a streamed history of n records, and returns what restores
// the limit before it (and gives the check's pages back). Without one the
// collector lets the heap grow to twice what is live, and the check's live
// heap is mostly kept to its end. A limit already set (GOMEMLIMIT, the
// program's own or an earlier Analyze's) is left alone.
func limitMemory(n int, perRecord int64) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if os.Getenv("GOMEMLIMIT") != "" || prev != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(max(minCheckMemory, perRecord*int64(n)))
	return func() {
		debug.SetMemoryLimit(prev)
		// the check's state is garbage now: give its pages back, so that
		// what comes next (the report) does not grow on top of them
		debug.FreeOSMemory()
	}
}
