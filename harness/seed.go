package harness

import "math/rand/v2"

// RunSeed is the seed of run i (1-based) of a campaign from base: base
// for run 1, then 1 + splitmix64(base + i − 1) mod 2^53 (never 0, which
// means "draw one"; exact in a float64 JSON reader).
func RunSeed(base int64, i int) int64 {
	if i <= 1 {
		return base
	}
	return int64(splitmix64(uint64(base)+uint64(i-1))%(1<<53)) + 1
}

// splitmix64 is SplitMix64's output function: a bijective mixer, so
// neighbouring inputs give unrelated seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// DrawSeed draws a base seed for a run or campaign given none: in
// [1, 2^53].
func DrawSeed() int64 { return rand.Int64N(1<<53) + 1 }
