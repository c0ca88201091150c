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
	// checkBytesPerRecord is the limit per record: about 1.7 times what
	// the check and the coverage hold per record at the end of a 10M-
	// record history (about 28 bytes: token rows, leases, latencies,
	// counter writes, fault windows), so that a longer history keeps the
	// collector's headroom instead of making it run without pause.
	checkBytesPerRecord = 48
)

// limitMemory sets a soft memory limit (runtime/debug.SetMemoryLimit) for
// the check of a streamed history of n records, and returns what restores
// the limit before it (and gives the check's pages back); with a limit
// already set, by the user or by Analyze, it does nothing. Without one the collector lets the heap grow to
// twice what is live, and the check's live heap is mostly kept to its end
// (a 10M-record check held about 300 MB and peaked at 790 MB RSS; under
// 512 MiB it peaked at 540 MB for 5 to 10% more CPU). A limit the user
// set (GOMEMLIMIT) is left alone.
func limitMemory(n int) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if os.Getenv("GOMEMLIMIT") != "" || prev != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(max(minCheckMemory, checkBytesPerRecord*int64(n)))
	return func() {
		debug.SetMemoryLimit(prev)
		// the check's state is garbage now: give its pages back, so that
		// what comes next (the report) does not grow on top of them
		debug.FreeOSMemory()
	}
}
