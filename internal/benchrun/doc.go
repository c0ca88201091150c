// Package benchrun makes the stored run folders that `make bench-analyze`
// times `lockstorm analyze` on: from a generated history (checker's
// TestWriteBenchHistory: 8 clients, 3 keys, partitions), a folder of a
// complete counter run of the fenced lock, and the same run with one
// acknowledged counter write lost. Its code is test-only (see
// TestWriteBenchRuns); the package has no API. A change to what it writes
// must bump BENCH_HISTORY_VERSION in the Makefile, whose bench-analyze
// keeps the folders it wrote.
package benchrun
