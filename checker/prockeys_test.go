package checker

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

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
