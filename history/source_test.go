package history

import (
	"path/filepath"
	"testing"
)

// TestSourcesAgree: a slice and the file it was written to give the same
// records, from the start and from a position a cursor gave.
func TestSourcesAgree(t *testing.T) {
	var h History
	for i := 0; i < 3000; i++ {
		h = append(h, Op{Index: int64(i), Time: int64(i) * 10, Process: i % 7, Type: Invoke, F: FAcquire, Key: "k"})
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	for _, src := range []Source{Slice(h), File(path)} {
		var at Pos
		n := 0
		if err := Each(src, func(o *Op) bool {
			if o.Index != int64(n) || o.Time != h[n].Time {
				t.Fatalf("%q: record %d is %+v", src.Path(), n, *o)
			}
			n++
			return true
		}); err != nil || n != len(h) {
			t.Fatalf("%q: %d records, %v", src.Path(), n, err)
		}
		c, _ := src.Open(Pos{})
		for c.Next() {
			if c.Op().Index == 2500 {
				at = c.Pos()
			}
		}
		c.Close()
		part, err := ReadRange(src, at, 2600)
		if err != nil || len(part) != 100 || part[0].Index != 2500 || part[99].Index != 2599 {
			t.Fatalf("%q: ReadRange from %+v: %d records, %v", src.Path(), at, len(part), err)
		}
	}
}
