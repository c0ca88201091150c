package analysis

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// TestCheckBenchDir runs Load and Check (the check and the coverage, not
// the report) on the run folder LOCKSTORM_BENCH_DIR and logs the time;
// run it under /usr/bin/time for the peak RSS, with -test.cpuprofile to
// see where the time goes. With LOCKSTORM_BENCH_ENDPROFILE set it writes
// a heap profile there as the last record is read (see profileAtEnd)
// and writes no results.json; otherwise Check writes results.json into
// the folder: give it a copy. Skipped unless LOCKSTORM_BENCH_DIR is set.
func TestCheckBenchDir(t *testing.T) {
	dir := os.Getenv("LOCKSTORM_BENCH_DIR")
	if dir == "" {
		t.Skip("LOCKSTORM_BENCH_DIR not set")
	}
	start := time.Now()
	res, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path := os.Getenv("LOCKSTORM_BENCH_ENDPROFILE"); path != "" {
		profileAtEnd(t, res, path)
		return
	}
	if err := Check(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict %v in %s", res.Verdict.Valid, time.Since(start))
	for _, p := range res.Verdict.Results {
		t.Logf("  %s %v %.2fs %s", p.Name, p.Valid, p.Seconds, p.Error)
	}
}

// profileAtEnd is Check's check and coverage with a heap profile written
// to path as the last record is read, after a collection: what the
// engine and the coverage hold at the end of their read.
func profileAtEnd(t *testing.T, res *Result, path string) {
	log, err := serverLog(res)
	if err != nil {
		t.Fatal(err)
	}
	c := checkersWith(res, log)
	cov := newCoverage(res)
	last := int64(res.Records - 1)
	c.Also = func(o *history.Op, _ history.Pos) {
		if cov != nil {
			cov.Add(o)
		}
		if o.Index == last {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			t.Logf("live heap at the last record %d MB", ms.HeapAlloc>>20)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	v, _, err := c.CheckSource(context.Background(), res.History)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict %v", v.Valid)
}
