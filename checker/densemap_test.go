package checker

import (
	"math/rand/v2"
	"testing"
)

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
