package harness

import (
	"testing"
)

// Run 1 keeps the base seed; the others are fixed, distinct, non-zero
// and below 2^53+1; another base gives other seeds.
func TestRunSeed(t *testing.T) {
	for _, base := range []int64{1, 9, 42, 1 << 52} {
		if got := RunSeed(base, 1); got != base {
			t.Errorf("RunSeed(%d, 1) = %d, want the base", base, got)
		}
		seen := map[int64]int{}
		for i := 1; i <= 1000; i++ {
			s := RunSeed(base, i)
			if s != RunSeed(base, i) {
				t.Fatalf("RunSeed(%d, %d) not deterministic", base, i)
			}
			if s <= 0 || s > 1<<53+1 && i > 1 {
				t.Fatalf("RunSeed(%d, %d) = %d, out of range", base, i, s)
			}
			if j, dup := seen[s]; dup {
				t.Fatalf("runs %d and %d of base %d share seed %d", j, i, base, s)
			}
			seen[s] = i
		}
	}
	if RunSeed(9, 2) == RunSeed(10, 2) || RunSeed(9, 2) == 10 {
		t.Error("neighbouring bases give related seeds")
	}
	if RunSeed(9, 2) != 1990934411096011 {
		t.Errorf("RunSeed(9, 2) = %d: the documented derivation changed (stored campaigns no longer replay)", RunSeed(9, 2))
	}
}
