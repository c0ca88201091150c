package analysis

import (
	"math"
	"os"
	"runtime/debug"
)

// The soft memory limit of a streamed check: at least 512 MiB, 48 bytes
// per record (1.7 times what the check and coverage hold, for headroom).
const (
	minCheckMemory      = 512 << 20
	checkBytesPerRecord = 48
	// rideBytesPerRecord is added when the report's pass rides on the
	// check's read (AnalyzeWith): about 1.5 times the 22 bytes per record
	// it holds (its plots' per-record data, its lease follower).
	rideBytesPerRecord = 32
)

// limitMemory sets a soft memory limit of perRecord bytes per record for
// the check of a streamed history of n records, unless one is set
// already, and returns what restores the one before (and gives the
// check's pages back).
//
// A history whose limit is above the minimum is checked with the
// collector's percentage off (unless GOGC is set): its heap grows to the
// limit it reaches late in the check anyway (10M records: ~13 % faster).
func limitMemory(n int, perRecord int64) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if os.Getenv("GOMEMLIMIT") != "" || prev != math.MaxInt64 {
		return func() {}
	}
	limit := max(minCheckMemory, perRecord*int64(n))
	debug.SetMemoryLimit(limit)
	percent := debug.SetGCPercent(-1)
	if limit == minCheckMemory || os.Getenv("GOGC") != "" {
		debug.SetGCPercent(percent) // a small history keeps a small heap
	}
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(prev)
		debug.FreeOSMemory() // the check's state is garbage now
	}
}
