package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func sampleOps() []Op {
	return []Op{
		{Type: Invoke, Process: 0, Client: "c1", F: FAcquire, Key: "k", TTL: int64(time.Second)},
		{Type: OK, Process: 0, Client: "c1", F: FAcquire, Key: "k", Token: "ab\"c\n", Fence: 7, Nodes: []string{"n1", "n2"}, TTL: 1e9, Validity: 123},
		{Type: Invoke, Process: NemesisProcess, F: FStart, Fault: "partition", Detail: "n2 from c1", Nodes: []string{"n2"}, Clients: []string{"c1"}},
		{Type: Info, Process: 1, F: FWrite, Value: -3, Error: "i/o timeout ☃"},
	}
}

// The recorder's stream and WriteFile of what it holds read back as the
// recorder holds it, odd strings included (as valid JSON), in index and
// time order.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r, err := CreateFile(filepath.Join(dir, "rec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range sampleOps() {
		r.Record(op)
	}
	r.Record(Op{Type: Info, F: "x", Error: "bell\a nul\x00 bad\xff utf8 ☃ \"q\" \\"})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := r.History()
	if err := WriteFile(filepath.Join(dir, "w.jsonl"), want); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rec.jsonl", "w.jsonl"} {
		got, warns, err := ReadFile(filepath.Join(dir, name))
		if err != nil || len(warns) != 0 || len(got) != 5 {
			t.Fatalf("%s: %d records, %v %v", name, len(got), err, warns)
		}
		if !reflect.DeepEqual(got[:4], want[:4]) || !strings.Contains(got[4].Error, "☃ \"q\" \\") {
			t.Fatalf("%s differs:\n got %+v\nwant %+v", name, got, want)
		}
	}
	for i, op := range want {
		if op.Index != int64(i) || i > 0 && op.Time < want[i-1].Time {
			t.Fatalf("op %d: index %d, time %d after %d", i, op.Index, op.Time, want[max(i-1, 0)].Time)
		}
	}
}

func TestStreamsWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	r, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Record(Op{Type: Invoke, F: FRead})
	deadline := time.Now().Add(2 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte("\n")) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("record not on disk 2 s after it was made; recorder does not stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConcurrentRecord(t *testing.T) {
	r := NewRecorder(nil)
	var wg sync.WaitGroup
	for p := 0; p < 8; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				r.Record(Op{Type: Invoke, Process: p, F: FRead})
			}
		}()
	}
	wg.Wait()
	h := r.History()
	if len(h) != 8000 {
		t.Fatalf("got %d records, want 8000", len(h))
	}
	for i, op := range h {
		if op.Index != int64(i) {
			t.Fatalf("index %d at position %d", op.Index, i)
		}
	}
}

func TestSince(t *testing.T) {
	r := NewRecorder(nil)
	for i := 0; i < chunkSize*2+10; i++ {
		r.Record(Op{Type: Invoke, F: FRead})
	}
	for _, from := range []int{0, 5, chunkSize - 1, chunkSize, chunkSize*2 + 9, chunkSize*2 + 10, -3} {
		got := r.Since(from)
		want := max(from, 0)
		if len(got) != r.Len()-want || (len(got) > 0 && got[0].Index != int64(want)) {
			t.Fatalf("Since(%d): %d records starting at %v", from, len(got), got)
		}
	}
}

func TestPairs(t *testing.T) {
	h := History{
		{Index: 0, Type: Invoke, Process: 0, F: FAcquire},
		{Index: 1, Type: Invoke, Process: 1, F: FAcquire},
		{Index: 2, Type: Invoke, Process: NemesisProcess, F: FStart},
		{Index: 3, Type: OK, Process: 1, F: FAcquire},
		{Index: 4, Type: OK, Process: NemesisProcess, F: FStart},
		{Index: 5, Type: Invoke, Process: 1, F: FLost},
		{Index: 6, Type: Info, Process: 0, F: FAcquire},
		{Index: 7, Type: Invoke, Process: 2, F: FRead},
		{Index: 8, Type: OK, Process: 9, F: FRead},
	}
	want := []Pair{{0, 6}, {1, 3}, {7, -1}}
	if got := Pairs(h); !reflect.DeepEqual(got, want) {
		t.Fatalf("Pairs = %v, want %v", got, want)
	}
}

// The Pairer yields each completed operation at its completion, and an
// invoke its process left open when the process invokes again.
func TestPairerYields(t *testing.T) {
	h := History{
		{Index: 0, Type: Invoke, Process: 0, F: FAcquire},
		{Index: 1, Type: Invoke, Process: 0, F: FRelease},
		{Index: 2, Type: OK, Process: 0, F: FRelease},
		{Index: 3, Type: Invoke, Process: 1, F: FRead},
	}
	var p Pairer
	var got []string
	for i := range h {
		if o, ok := p.Add(&h[i]); ok {
			got = append(got, fmt.Sprintf("%d:%d->%v", o.Seq, o.Invoke.Index, o.Completion != nil))
		}
	}
	if want := []string{"0:0->false", "1:1->true"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("yields %v, want %v", got, want)
	}
	if fl := p.Flush(); len(fl) != 1 || fl[0].Invoke.Index != 3 || fl[0].InvokeAt != 3 || p.Open() != 0 {
		t.Fatalf("Flush = %+v", fl)
	}
}

// Past fewOpen operations in flight the Pairer's map pairs as its scan
// does: 40 processes invoke, complete in reverse, and 7 stay open.
func TestPairerManyOpen(t *testing.T) {
	var h History
	for p := range 40 {
		h = append(h, Op{Index: int64(len(h)), Type: Invoke, Process: 1000 * p, F: FRead})
	}
	for p := 39; p >= 7; p-- {
		h = append(h, Op{Index: int64(len(h)), Type: OK, Process: 1000 * p, F: FRead})
	}
	var p Pairer
	for i := range h {
		if o, ok := p.Add(&h[i]); ok && (o.Completion == nil || o.Invoke.Process != o.Completion.Process || o.Seq != o.Invoke.Process/1000) {
			t.Fatalf("record %d paired %+v with %+v (seq %d)", i, o.Invoke, o.Completion, o.Seq)
		}
	}
	fl := p.Flush()
	if len(fl) != 7 || fl[0].Invoke.Process != 0 || fl[6].Invoke.Process != 6000 || p.Open() != 0 {
		t.Fatalf("Flush = %d operations from process %d, open %d", len(fl), fl[0].Invoke.Process, p.Open())
	}
}

// fullDisk is a writer that accepts limit bytes, then fails like a full
// disk.
type fullDisk struct {
	limit, n int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if d.n+len(p) > d.limit {
		k := max(d.limit-d.n, 0)
		d.n += k
		return k, syscall.ENOSPC
	}
	d.n += len(p)
	return len(p), nil
}

// A write error (full disk) is reported promptly on Failed and by Err,
// while every record stays in memory.
func TestRecorderReportsWriteError(t *testing.T) {
	r := NewRecorder(&fullDisk{limit: 100})
	for i := 0; i < 50; i++ {
		r.Record(Op{Process: 1, Type: Invoke, F: FAcquire})
	}
	select {
	case <-r.Failed():
	case <-time.After(time.Second):
		t.Fatal("no write error reported within 1 s")
	}
	if err := r.Err(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Err = %v, want ENOSPC", err)
	}
	if err := r.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close = %v, want ENOSPC", err)
	}
	if n := len(r.History()); n != 50 {
		t.Fatalf("memory has %d records, want 50", n)
	}
}
