package coverage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// EachRecord, decoding in parallel batches, hands over every record in
// order; it skips a truncated last record and fails on a damaged one
// with records after it.
func TestEachRecord(t *testing.T) {
	h := manyRecords(3 * readBatch)
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	next := int64(0)
	if err := EachRecord(path, func(o *history.Op) {
		if o.Index != next || o.Time != h[next].Time || o.F != h[next].F {
			t.Fatalf("record %d: got %+v, want %+v", next, *o, h[next])
		}
		next++
	}); err != nil || next != int64(len(h)) {
		t.Fatalf("%d of %d records, %v", next, len(h), err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, `{"index":1,"ti`...), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := EachRecord(path, func(*history.Op) { n++ }); err != nil || n != len(h) {
		t.Errorf("truncated last record: %d records, %v", n, err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[readBatch+5] = []byte("{damaged\n")
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EachRecord(path, func(*history.Op) {}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d", readBatch+6)) {
		t.Errorf("damaged record: %v, want an error naming line %d", err, readBatch+6)
	}
}

// manyRecords is a history of n records: acquire, write and release
// rounds of 4 processes, and a fault now and then.
func manyRecords(n int) history.History {
	var b hb
	for i := 0; len(b.h) < n; i++ {
		p, slot := i%4, fmt.Sprintf("c%d", i%4+1)
		if i%50 == 0 {
			b.fault("client-pause", int64(i), history.OK, []string{slot}, nil)
			b.stop("client-pause", int64(i)+1)
		}
		b.client(int64(i), p, slot, history.Invoke, history.FAcquire)
		b.acquired(int64(i), p, slot, nil, 0)
		b.client(int64(i), p, slot, history.Invoke, history.FRelease)
		b.client(int64(i), p, slot, history.OK, history.FRelease)
	}
	return b.h[:n]
}
