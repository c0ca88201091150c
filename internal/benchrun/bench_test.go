package benchrun

import (
	"os"
	"testing"
)

// Folder name suffixes: the correct run and the run with a lost update.
const (
	correctSuffix = "-correct"
	lostSuffix    = "-lost-update"
)

// TestWriteBenchRuns writes, from the generated history
// LOCKSTORM_BENCH_HISTORY (checker's TestWriteBenchHistory), the run
// folders LOCKSTORM_BENCH_RUNS-correct and LOCKSTORM_BENCH_RUNS-lost-update
// for `make bench-analyze`. Skipped unless both are set.
func TestWriteBenchRuns(t *testing.T) {
	path, prefix := os.Getenv("LOCKSTORM_BENCH_HISTORY"), os.Getenv("LOCKSTORM_BENCH_RUNS")
	if path == "" || prefix == "" {
		t.Skip("LOCKSTORM_BENCH_HISTORY and LOCKSTORM_BENCH_RUNS not set")
	}
	if err := writeFolders(path, prefix); err != nil {
		t.Fatal(err)
	}
}

// writeFolders writes both run folders of the generated history at path.
func writeFolders(path, prefix string) error {
	s, err := scanHistory(path)
	if err != nil {
		return err
	}
	if err := writeFolder(path, s, prefix+correctSuffix, false); err != nil {
		return err
	}
	return writeFolder(path, s, prefix+lostSuffix, true)
}
