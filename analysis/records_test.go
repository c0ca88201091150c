package analysis

import (
	"os"
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

// history.SummarizeFile, as Load reads a history, counts its records and
// keeps its nemesis records, as history.Read would find them, and skips a
// truncated last record with Read's warning.
func TestSummarizeFileForLoad(t *testing.T) {
	h := history.History{
		{Index: 0, Time: 1, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k"},
		{Index: 1, Time: 2, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: `a "process":-1 in a detail`},
		{Index: 2, Time: 3, Type: history.OK, Process: -10, F: history.FAcquire, Key: "k"},
		{Index: 3, Time: 4, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "partition"},
		{Index: 4, Time: 5, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k"},
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	s, err := history.SummarizeFile(path)
	if err != nil || s.Records != 5 || len(s.Nemesis) != 2 || s.Nemesis[0].Index != 1 || s.Nemesis[1].Index != 3 || len(s.Warnings) != 0 {
		t.Fatalf("SummarizeFile = %d records, nemesis %v, warnings %v, %v; want 5, records 1 and 3", s.Records, s.Nemesis, s.Warnings, err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, `{"index":5,"time":6,"ty`...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rwarns, rerr := history.ReadFile(path)
	s, err = history.SummarizeFile(path)
	if err != nil || rerr != nil || s.Records != 5 || len(s.Nemesis) != 2 || len(s.Warnings) != 1 || len(rwarns) != 1 || s.Warnings[0] != rwarns[0] {
		t.Fatalf("truncated: %d records, %d nemesis, warnings %v (Read's %v), %v", s.Records, len(s.Nemesis), s.Warnings, rwarns, err)
	}
}
