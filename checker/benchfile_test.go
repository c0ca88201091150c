package checker

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// TestWriteBenchHistory writes a generated history of
// LOCKSTORM_BENCH_RECORDS records (8 clients, 3 keys, faults) to the JSONL
// file LOCKSTORM_BENCH_HISTORY, for `make bench-analyze`. Skipped unless
// both are set.
func TestWriteBenchHistory(t *testing.T) {
	path, n := os.Getenv("LOCKSTORM_BENCH_HISTORY"), os.Getenv("LOCKSTORM_BENCH_RECORDS")
	if path == "" || n == "" {
		t.Skip("LOCKSTORM_BENCH_HISTORY and LOCKSTORM_BENCH_RECORDS not set")
	}
	records, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	h := newGen(42, 8, 3).run(records, true)
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
}

// TestAnalyzeBenchHistory checks the file LOCKSTORM_BENCH_HISTORY with the
// standard composition, whole (LOCKSTORM_BENCH_MODE=whole) or streamed in
// segments (the default), and logs the time; run it under /usr/bin/time
// -v for the peak RSS. Skipped unless the variable is set.
func TestAnalyzeBenchHistory(t *testing.T) {
	path := os.Getenv("LOCKSTORM_BENCH_HISTORY")
	if path == "" {
		t.Skip("LOCKSTORM_BENCH_HISTORY not set")
	}
	start := time.Now()
	var r Result
	switch os.Getenv("LOCKSTORM_BENCH_MODE") {
	case "whole":
		h, _, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r = Standard(Options{Fencing: true}).Check(context.Background(), h)
	case "segmented":
		h, _, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r = Standard(Options{Fencing: true}).CheckSegmented(context.Background(), h)
	default:
		t.Fatal("streaming not built yet")
	}
	t.Logf("verdict %v in %s", r.Valid, time.Since(start))
	for _, p := range r.Results {
		t.Logf("  %s %v %.2fs %s", p.Name, p.Valid, p.Seconds, p.Error)
	}
}
