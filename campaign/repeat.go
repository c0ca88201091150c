package campaign

import (
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// Repeat is `lockstorm run --runs n` as a campaign: one cell (cfg with
// its name and store filled), run k with seed harness.RunSeed(base, k),
// each claiming a valid verdict. f brings --shard and --junit.
func Repeat(cfg config.Config, n int, base int64, f config.Campaign) Spec {
	if filled, err := cfg.WithDefaults(); err == nil {
		cfg.Name, cfg.Store = filled.Name, filled.Store
	}
	f.Seeds, f.Run.Store, f.Run.TimeLimit = n, cfg.Store, cfg.TimeLimit
	return Spec{Kind: "run", Name: cfg.Name, Flags: f,
		Cells:  []Cell{{Name: cfg.Name, Config: cfg, Claims: []Claim{Expect(checker.Valid)}}},
		SeedOf: func(k int) int64 { return harness.RunSeed(base, k) },
		Extra:  struct{ Base int64 }{base}}
}

// RepeatBase checks `run --runs n` before any run starts and returns its
// base seed: cfg.Seed, or one drawn (drawn true). Errors wrap
// config.ErrConfig.
func RepeatBase(cfg config.Config, n int, untilInvalid bool, s shard.Shard) (base int64, drawn bool, err error) {
	filled, err := cfg.WithDefaults()
	if err != nil {
		return 0, false, err
	}
	if err := harness.CheckShard(filled, n, untilInvalid, s); err != nil {
		return 0, false, err
	}
	if filled.Seed != 0 {
		return filled.Seed, false, nil
	}
	return harness.DrawSeed(), true, nil
}

// UntilInvalid is Options.StopAfter of `--until-invalid`.
func UntilInvalid(o *Outcome) bool { return o.Verdict == checker.Invalid }
