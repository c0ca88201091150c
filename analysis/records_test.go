package analysis

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// EachRecord gives the same records, in order, from memory and from a
// big history's file.
func TestEachRecordMemoryAndFile(t *testing.T) {
	h := turnsHistory(30, -1)
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	collect := func(res *Result) []int64 {
		var idx []int64
		if err := res.EachRecord(func(op *history.Op) { idx = append(idx, op.Index) }); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	mem, file := collect(&Result{History: history.Slice(h)}), collect(&Result{History: history.File(path), Records: len(h)})
	if len(mem) != len(h) || !slices.Equal(mem, file) {
		t.Fatalf("memory gave %d records, the file %d; equal %v", len(mem), len(file), slices.Equal(mem, file))
	}
	if err := (&Result{History: history.File(filepath.Join(t.TempDir(), "missing.jsonl"))}).EachRecord(func(*history.Op) {}); err == nil {
		t.Fatal("a missing history file gave no error")
	}
}
