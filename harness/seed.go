package harness

import "math/rand/v2"

// RunSeed is the seed of run i (1-based) of a campaign repeated from base:
// run 1 uses base itself, so `--runs 1` is the single run `--seed base`
// always was; run i ≥ 2 uses 1 + splitmix64(base + i − 1) mod 2^53, a
// fixed function of (base, i), never 0 (0 means "draw one"), below 2^53 so
// it survives JSON readers that use float64. Replaying run i needs only
// its seed (printed and stored in its test.json), not the campaign.
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
