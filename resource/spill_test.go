package resource

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Spill streams every log entry to the file and keeps a bounded tail in
// memory; WritesSince from before the tail starts at its oldest entry.
func TestSpillKeepsTailAndStreamsAll(t *testing.T) {
	s, c := start(t, false)
	path := filepath.Join(t.TempDir(), "writes.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Spill(f, 10)
	const n = 100
	for i := 1; i <= n; i++ {
		if err := c.Write(ctx(t), "x", int64(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	if mem := len(s.Writes()); mem < 10 || mem > 20 || s.Whole() || s.Logged() != n {
		t.Fatalf("%d entries in memory (want 10..20), Whole %v, Logged %d", mem, s.Whole(), s.Logged())
	}
	ws, from := s.WritesSince(0)
	if from+len(ws) != n || ws[0].Value != int64(from+1) || ws[len(ws)-1].Value != n {
		t.Fatalf("WritesSince(0): %d entries from %d, values %d..%d", len(ws), from, ws[0].Value, ws[len(ws)-1].Value)
	}
	if ws, from := s.WritesSince(n - 3); len(ws) != 3 || from != n-3 || ws[0].Value != n-2 {
		t.Fatalf("WritesSince(%d): %v from %d", n-3, ws, from)
	}
	if ws, from := s.WritesSince(n); ws != nil || from != n {
		t.Fatalf("WritesSince(n): %v from %d", ws, from)
	}
	if err := s.CloseSpill(); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sc, i := bufio.NewScanner(g), 0
	for ; sc.Scan(); i++ {
		var w Write
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil || w.Value != int64(i+1) || !w.Accepted {
			t.Fatalf("line %d: %s %v", i+1, sc.Text(), err)
		}
	}
	if i != n {
		t.Fatalf("%d lines in the file, want %d", i, n)
	}
}

// Without Spill every entry stays in memory.
func TestNoSpillKeepsAll(t *testing.T) {
	s, c := start(t, false)
	for i := 1; i <= 30; i++ {
		if err := c.Write(ctx(t), "x", int64(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.Writes()) != 30 || !s.Whole() || s.CloseSpill() != nil {
		t.Fatalf("%d entries, Whole %v", len(s.Writes()), s.Whole())
	}
}
