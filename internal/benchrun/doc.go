// Package benchrun makes the stored run folders that `make bench-analyze`
// times `lockstorm analyze` on (test-only code, see TestWriteBenchRuns):
// a complete counter run of the fenced lock from a generated history, and
// the same run with one acknowledged write lost. A change to what it
// writes must bump BENCH_HISTORY_VERSION in the Makefile.
package benchrun
