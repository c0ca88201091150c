package checker

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
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
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeBenchHistory(f, records, 1_000_000); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeBenchHistory writes a generated history of records records (8
// clients, 3 keys, faults) as JSONL to w: up to genMax records generated,
// then repeated with times, indices, processes, tokens, fences, validities
// and counter values shifted, so that a 10M-record file needs no 10M
// records in memory. Each copy continues the counters and fences where the
// one before ended, so that the repeated history stays valid. A change to
// what it writes must bump BENCH_HISTORY_VERSION in the Makefile, whose
// bench-analyze keeps the files it wrote.
func writeBenchHistory(out io.Writer, records, genMax int) error {
	h := historytest.NewGen(42, 8, 3).Run(min(records, genMax), true)
	w := bufio.NewWriterSize(out, 1<<20)
	var end, maxFence int64
	maxProc := 0
	lastValue := map[string]int64{}
	for _, r := range h {
		end, maxProc, maxFence = max(end, r.Time), max(maxProc, r.Process), max(maxFence, r.Fence)
		if r.F == history.FWrite && r.Type == history.OK {
			lastValue[r.Key] = max(lastValue[r.Key], r.Value)
		}
	}
	written := 0
	for c := 0; written < records; c++ {
		shift := int64(c) * (end + 1e9)
		for _, r := range h {
			if written == records {
				break
			}
			r.Index = int64(written)
			r.Time += shift
			if r.Validity != 0 {
				r.Validity += shift // a deadline is a time too
			}
			if c > 0 && r.Process >= 0 {
				r.Process += c * (maxProc + 1)
			}
			if c > 0 && r.Token != "" {
				r.Token += "." + strconv.Itoa(c)
			}
			if c > 0 && r.Fence != 0 {
				r.Fence += int64(c) * maxFence
			}
			if c > 0 && (r.F == history.FRead || r.F == history.FWrite) && (r.Value != 0 || r.Type == history.OK && r.F == history.FRead) {
				r.Value += int64(c) * lastValue[r.Key]
			}
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			w.Write(b)
			w.WriteByte('\n')
			written++
		}
	}
	return w.Flush()
}

// TestBenchHistoryCopiesValid: the bench history stays valid across its
// copies (validities shifted too), whole and streamed.
func TestBenchHistoryCopiesValid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeBenchHistory(f, 25_000, 10_000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, whole := checkBoth(t, "bench copies", h, Options{Lock: NewLock(), Fencing: true})
	if whole.Valid != Valid {
		t.Errorf("bench history of 2.5 copies: %v, invalid parts %v", whole.Valid, invalidParts(whole))
	}
}

// TestAnalyzeBenchHistory checks the file LOCKSTORM_BENCH_HISTORY with the
// standard composition, read into memory first (LOCKSTORM_BENCH_MODE=whole) or streamed
// from the file (the default), and logs the time; run it under /usr/bin/time
// -v for the peak RSS. Skipped unless the variable is set.
func TestAnalyzeBenchHistory(t *testing.T) {
	path := os.Getenv("LOCKSTORM_BENCH_HISTORY")
	if path == "" {
		t.Skip("LOCKSTORM_BENCH_HISTORY not set")
	}
	start := time.Now()
	stop := watchHeap(t, os.Getenv("LOCKSTORM_BENCH_HEAPPROFILE"))
	defer stop()
	var r Result
	switch os.Getenv("LOCKSTORM_BENCH_MODE") {
	case "whole":
		h, _, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r = Standard(Options{Fencing: true}).Check(context.Background(), h)
	default:
		var err error
		r, _, err = Standard(Options{Fencing: true}).CheckSource(context.Background(), history.File(path))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("streamed: %+v", lastStream)
	}
	t.Logf("verdict %v in %s", r.Valid, time.Since(start))
	for _, p := range r.Results {
		t.Logf("  %s %v %.2fs %s", p.Name, p.Valid, p.Seconds, p.Error)
		for _, a := range p.Anomalies[:min(len(p.Anomalies), 3)] {
			t.Logf("    %s %v %s", a.Kind, a.Ops, a.Text)
		}
	}
}

// watchHeap samples the live heap every 200 ms until stop is called, then
// logs its peak; with path set it writes a heap profile (pprof) at each
// new peak, to see what the peak is made of.
func watchHeap(t *testing.T, path string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak+peak/10 {
				peak = ms.HeapAlloc
				if path != "" {
					if f, err := os.Create(path); err == nil {
						pprof.WriteHeapProfile(f)
						f.Close()
					}
				}
			}
			select {
			case <-done:
				finished <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		t.Logf("peak live heap (sampled) %d MB", <-finished>>20)
	}
}
