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

// TestCheckBenchDir times Load and Check of the run folder
// LOCKSTORM_BENCH_DIR (give it a copy: Check writes results.json), or,
// with LOCKSTORM_BENCH_ENDPROFILE set, writes a heap profile there as the
// last record is read. Skipped unless LOCKSTORM_BENCH_DIR is set.
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

// profileAtEnd is Check's read with a heap profile written to path, after
// a collection, as the last record is read.
func profileAtEnd(t *testing.T, res *Result, path string) {
	log, err := serverLog(res)
	if err != nil {
		t.Fatal(err)
	}
	c := checkersWith(res, log)
	cov, leases := newCoverage(res), FollowLeases(res.Config)
	last := int64(res.Records - 1)
	c.Also = func(o *history.Op, _ history.Pos) {
		if cov != nil {
			cov.Add(o, leases.Add(o))
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
