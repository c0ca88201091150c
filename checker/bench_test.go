package checker

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// BenchmarkLockAndCounter100k checks a synthetic history of 100k
// operations (200k records): 8 clients on 3 keys, with waits, pauses
// past the TTL, extends, info ops and fault windows; lock and counter
// porcupine checks both. Target: < 10 s per op.
func BenchmarkLockAndCounter100k(b *testing.B) {
	h := historytest.NewGen(42, 8, 3).Run(200_000, true)
	if err := Validate(h); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := NewLock().Check(ctx, h); r.Valid != Valid {
			b.Fatalf("lock: %v %s", r.Valid, r.Error)
		}
		if r := (&Resource{}).Check(ctx, h); r.Valid != Valid {
			b.Fatalf("resource: %v %s", r.Valid, r.Error)
		}
	}
	b.ReportMetric(float64(len(h)/2), "ops")
}

// BenchmarkFencing10M streams 10M fenced writes (20M records: 8 clients,
// 4 keys, overlapping in time, some rejected as stale) through the
// fencing check. Target: < 2 s per op.
func BenchmarkFencing10M(b *testing.B) {
	const writes = 10_000_000
	keys := []string{"c0", "c1", "c2", "c3"}
	for i := 0; i < b.N; i++ {
		r := newFencingRun(nil)
		var o history.Op
		fences := [4]int64{1, 1, 1, 1}
		for w := 0; w < writes; w += 8 {
			k := (w / 8) % 4
			fences[k]++
			// 8 clients invoke, then complete, concurrently
			for _, typ := range []history.Type{history.Invoke, history.OK} {
				for p := 0; p < 8; p++ {
					o = history.Op{Index: o.Index + 1, Time: o.Time + 1, Type: typ, Process: p, F: history.FWrite, Key: keys[k], Fence: fences[k] - int64(p&1)}
					if typ == history.OK && p&1 == 1 {
						o.Type, o.Error = history.Fail, StaleError
					}
					r.feed(&o)
				}
			}
		}
		if st := r.v.Stats; st.Accepted+st.Rejected != writes || st.StaleAccepted != 0 {
			b.Fatalf("stats %+v", st)
		}
	}
}

// BenchmarkFencingHistory1M runs the Fencing checker on a history of 1M
// writes (2M records), including the history walk.
func BenchmarkFencingHistory1M(b *testing.B) {
	b1 := historytest.New()
	for w := int64(0); w < 1_000_000; w++ {
		b1.Append(history.Op{Type: history.Invoke, Process: int(w % 8), F: history.FWrite, Key: "c", Fence: w + 1, Value: w + 1, Time: 2 * w})
		b1.Append(history.Op{Type: history.OK, Process: int(w % 8), F: history.FWrite, Key: "c", Fence: w + 1, Value: w + 1, Time: 2*w + 1})
	}
	h := b1.History()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := (Fencing{}).Check(context.Background(), h); r.Valid != Valid {
			b.Fatal(r)
		}
	}
}

// BenchmarkLockInvalid100k is BenchmarkLockAndCounter100k's lock history
// with one acquire injected inside a live lease near the end: the time to
// prove it invalid and name the ops.
func BenchmarkLockInvalid100k(b *testing.B) {
	g := historytest.NewGen(42, 8, 3)
	g.Run(200_000, true)
	h := g.InjectOverlap(len(g.Leases) - 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := NewLock().Check(context.Background(), h); r.Valid != Invalid || len(r.Anomalies) != 1 {
			b.Fatalf("lock: %v %s", r.Valid, r.Error)
		}
	}
}

// BenchmarkCheckSourceFile200k streams a 200k-record bench history from a file
// (CheckSource of the file: the standard composition with fencing, segments checked in
// parallel); records/s = 200k / (ns/op) · 1e9. make bench-analyze measures
// the same at 400k and 10M records with wall time and peak RSS.
func BenchmarkCheckSourceFile200k(b *testing.B) {
	const n = 200_000
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeBenchHistory(f, n, n); err != nil {
		b.Fatal(err)
	}
	f.Close()
	c := Standard(Options{Fencing: true})
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := c.CheckSource(context.Background(), history.File(path))
		if err != nil || r.Valid != Valid {
			b.Fatalf("%v %v", r.Valid, err)
		}
	}
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
