package harness

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
)

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

// Hooks are called during a campaign (Repeat); nil ones are skipped.
type Hooks struct {
	// OnBase is called with the base seed (drawn when cfg.Seed is 0) once
	// the configuration is checked, before the first run starts.
	OnBase func(base int64)
	// OnRun is called after run i (1-based), in order, before the next
	// starts (the CLI writes its report and prints its summary there).
	OnRun func(i int, res *analysis.Result)
	// Shard, when set, runs only the shard's share of the n runs: run i
	// when (i − 1) mod N is K (shard.go).
	Shard shard.Shard
}

// Repeat runs cfg n times, run i with seed RunSeed(base, i), where base is
// cfg.Seed or, when 0, a drawn seed (Campaign.Base). Each run is a full
// Run with its own folder in the store; the configuration is checked and
// filled once. With untilInvalid it stops after the first invalid run.
// When ctx ends, the run under way stops and heals as Run does, no
// further run starts, and the campaign is interrupted (unknown at best); a
// run interrupted during its setup is not in Runs. Any other error of a
// run (setup, bad config) ends the campaign with that error and the runs
// so far.
func Repeat(ctx context.Context, cfg config.Config, n int, untilInvalid bool, hooks Hooks) (*analysis.Campaign, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: --runs must be at least 1, got %d", config.ErrConfig, n)
	}
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if err := CheckShard(cfg, n, untilInvalid, hooks.Shard); err != nil {
		return nil, err
	}
	c := &analysis.Campaign{Base: cfg.Seed, Planned: hooks.Shard.Count(n), Total: n, Shard: hooks.Shard}
	if c.Base == 0 {
		c.Base = DrawSeed()
	}
	if hooks.OnBase != nil {
		hooks.OnBase(c.Base)
	}
	defer func() { c.Verdict = c.Aggregate() }()
	for i := 1; i <= n; i++ {
		if !hooks.Shard.Owns(i - 1) {
			continue
		}
		if ctx.Err() != nil {
			c.Interrupted = true
			break
		}
		rc := cfg
		rc.Seed = RunSeed(c.Base, i)
		res, err := runChecked(ctx, rc)
		if err != nil && ctx.Err() != nil {
			// Interrupted while the run was being set up: it never ran
			// (its folder says setup failed); the campaign is cut short,
			// which is unknown, not bad input.
			c.Interrupted = true
			break
		}
		if err != nil {
			return c, err
		}
		c.Runs = append(c.Runs, res)
		if hooks.Shard.Set() {
			c.Numbers = append(c.Numbers, i)
		}
		if hooks.OnRun != nil {
			hooks.OnRun(i, res)
		}
		if res.Interrupted || ctx.Err() != nil {
			c.Interrupted = true
			break
		}
		if untilInvalid && res.Verdict.Valid == checker.Invalid {
			c.StoppedEarly = i < n
			break
		}
	}
	return c, nil
}
