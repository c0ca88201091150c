package checker

import (
	"strconv"
	"testing"
)

// The token table's index finds every row it was given, across its
// growths, and no row it was not.
func TestTokTableIndex(t *testing.T) {
	tab := newTokTable()
	const n = 100_000
	for i := range n {
		j, r := tab.row("k"+strconv.Itoa(i%3), "t"+strconv.Itoa(i))
		if j != uint32(i) || r.first != 0 {
			t.Fatalf("token %d: new row %d (first %d)", i, j, r.first)
		}
		r.first = int64(i) + 1
	}
	for i := range n {
		key, tok := "k"+strconv.Itoa(i%3), "t"+strconv.Itoa(i)
		if j, r, ok := tab.find(key, tok); !ok || j != uint32(i) || r.first != int64(i)+1 {
			t.Fatalf("token %d: found %v, row %d", i, ok, j)
		}
		if j, _ := tab.row(key, tok); j != uint32(i) {
			t.Fatalf("token %d: row again gave %d", i, j)
		}
		if _, _, ok := tab.find("k"+strconv.Itoa((i+1)%3), tok); ok {
			t.Fatalf("token %d found under another key", i)
		}
	}
	if tab.n != n || len(tab.slots) < n*4/3 {
		t.Fatalf("%d rows in %d slots", tab.n, len(tab.slots))
	}
}

// BenchmarkTokTable adds 1M tokens on 3 keys and finds each again: the
// token table's share of a 10M-record check (1.15M tokens).
func BenchmarkTokTable(b *testing.B) {
	toks := make([]string, 1_000_000)
	for i := range toks {
		toks[i] = "t" + strconv.Itoa(i)
	}
	for b.Loop() {
		tab := newTokTable()
		for i, tok := range toks {
			tab.row("lock"+strconv.Itoa(i%3), tok)
		}
		for i, tok := range toks {
			if _, _, ok := tab.find("lock"+strconv.Itoa(i%3), tok); !ok {
				b.Fatal(tok)
			}
		}
	}
}
