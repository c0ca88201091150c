package history

import (
	"path/filepath"
	"testing"
)

// With KeepLast, memory holds a bounded tail of the newest records while
// the file gets every record; Since from before the tail starts at the
// oldest kept record.
func TestKeepLastBoundsMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	r, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keep := chunkSize + 100
	r.KeepLast(keep)
	total := chunkSize*10 + 17
	for i := 0; i < total; i++ {
		r.Record(Op{Type: Invoke, F: FRead, Value: int64(i)})
		if i%1000 != 0 {
			continue
		}
		if n := len(r.History()); n > keep+2*chunkSize {
			t.Fatalf("after %d records %d are in memory, want at most %d", i+1, n, keep+2*chunkSize)
		}
	}
	if r.Len() != total || r.Whole() {
		t.Fatalf("Len %d Whole %v, want %d false", r.Len(), r.Whole(), total)
	}
	mem := r.History()
	if len(mem) < keep || mem[len(mem)-1].Index != int64(total-1) || mem[0].Index != int64(r.First()) {
		t.Fatalf("in memory: %d records from %d to %d (First %d), want at least %d ending at %d",
			len(mem), mem[0].Index, mem[len(mem)-1].Index, r.First(), keep, total-1)
	}
	for i, op := range mem {
		if op.Value != op.Index || op.Index != mem[0].Index+int64(i) {
			t.Fatalf("record %d in memory is %+v", i, op)
		}
	}
	for _, from := range []int{0, r.First() - 1, r.First(), r.First() + chunkSize + 3, total - 1, total} {
		got := r.Since(from)
		want := max(from, r.First())
		if len(got) != total-want || (len(got) > 0 && got[0].Index != int64(want)) {
			t.Fatalf("Since(%d): %d records starting at %v, want from %d", from, len(got), got[:min(len(got), 1)], want)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	h, _, err := ReadFile(path)
	if err != nil || len(h) != total || h[total-1].Value != int64(total-1) {
		t.Fatalf("file: %d records, %v; want %d", len(h), err, total)
	}
}

// Without KeepLast every record stays: Whole is true.
func TestKeepAllIsWhole(t *testing.T) {
	r := NewRecorder(nil)
	for i := 0; i < chunkSize*3; i++ {
		r.Record(Op{Type: Invoke, F: FRead})
	}
	if !r.Whole() || r.First() != 0 || len(r.History()) != chunkSize*3 {
		t.Fatalf("Whole %v First %d len %d", r.Whole(), r.First(), len(r.History()))
	}
}

// First is the index of the oldest record still in memory (0 unless
// KeepLast dropped records).
func (r *Recorder) First() int { return locked(&r.mu, func() int { return r.first }) }
