package checker

import (
	"math/rand/v2"
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

// TestDenseMap: runs, gaps, keys below the runs and missing keys read
// back as a map would.
func TestDenseMap(t *testing.T) {
	var m denseMap[int64]
	want := map[int64]int64{}
	r := rand.New(rand.NewPCG(1, 2))
	k := int64(-5)
	for i := 0; i < 20000; i++ {
		switch x := r.IntN(100); {
		case x < 80:
			k++
		case x < 90:
			k += r.Int64N(5) + 2
		default: // below: out of order
			k2 := k - r.Int64N(50)
			if _, ok := want[k2]; !ok {
				want[k2] = int64(i)
				m.add(k2, int64(i))
			}
			continue
		}
		if _, ok := want[k]; !ok {
			want[k] = int64(i)
			m.add(k, int64(i))
		}
	}
	for q := int64(-100); q < k+100; q += 7 { // overwrite some
		_, had := want[q]
		m.set(q, -q, had)
		want[q] = -q
	}
	for q := int64(-100); q < k+100; q++ {
		v, ok := m.get(q)
		w, wok := want[q]
		if ok != wok || v != w {
			t.Fatalf("get(%d) = %d %v, want %d %v", q, v, ok, w, wok)
		}
	}
	if len(m.runs) > len(want)/3 {
		t.Errorf("%d runs for %d keys", len(m.runs), len(want))
	}
}

// procKeyPos reads back as a map keyed by procKey would, for processes
// inside and outside the packed range, negative ones included.
func TestProcKeyPos(t *testing.T) {
	var m procKeyPos
	want := map[procKey]int{}
	r := rand.New(rand.NewPCG(3, 4))
	procs := []int{0, 1, 7, 1<<40 - 1, 1 << 40, -1, 1 << 50}
	for i := 0; i < 5000; i++ {
		p := procs[r.IntN(len(procs))]
		if r.IntN(2) == 0 {
			p = r.IntN(1000)
		}
		k := "k" + strconv.Itoa(r.IntN(5))
		m.set(p, k, i)
		want[procKey{p, k}] = i
	}
	for _, p := range append(procs, 3, 999, 1000) {
		for j := range 6 {
			k := "k" + strconv.Itoa(j)
			got, ok := m.get(p, k)
			w, wok := want[procKey{p, k}]
			if ok != wok || got != w {
				t.Fatalf("get(%d, %q) = %d %v, want %d %v", p, k, got, ok, w, wok)
			}
		}
	}
}
