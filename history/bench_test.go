package history

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

var benchOp = Op{Type: OK, Process: 3, F: FAcquire, Key: "lock-1", Token: "3f2a9c0d1e7b44a1b2c3d4e5f6a7b8c9",
	Fence: 1234, Nodes: []string{"n1", "n2", "n3"}, TTL: 2e9, Validity: 123456789}

// BenchmarkRecordFile records to a real file; records/s = 1e9 / ns/op.
func BenchmarkRecordFile(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "h.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	r := NewRecorder(f)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Record(benchOp)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRecordParallel records from GOMAXPROCS goroutines at once.
func BenchmarkRecordParallel(b *testing.B) {
	r := NewRecorder(io.Discard)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Record(benchOp)
		}
	})
	_ = r.Close()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRecordKeepLast records to a real file keeping only the last
// 64k records in memory, as lockstorm run does (KeepLast).
func BenchmarkRecordKeepLast(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "h.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	r := NewRecorder(f)
	r.KeepLast(1 << 16)
	b.ReportAllocs()
	for b.Loop() {
		r.Record(benchOp)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
