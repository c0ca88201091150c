package harness

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// A sharded campaign (Hooks.Shard) runs run i (1-based) of the n when
// (i − 1) mod N is its K, with the seed RunSeed(base, i) the unsharded
// campaign gives it, so the union of the shards is the unsharded campaign.
// Its base seed must be given (a drawn one would differ per machine) and
// it cannot stop at the first invalid run (the other machines would not
// know).

// checkShard refuses a shard of a campaign that could not be merged.
func checkShard(cfg config.Config, n int, untilInvalid bool, s shard.Shard) error {
	switch {
	case !s.Set():
		return nil
	case cfg.Seed == 0:
		return fmt.Errorf("%w: --shard needs --seed: every machine must derive the same runs' seeds from one base seed", config.ErrConfig)
	case untilInvalid:
		return fmt.Errorf("%w: --until-invalid cannot be combined with --shard: the other machines would not stop", config.ErrConfig)
	case n < s.N:
		return fmt.Errorf("%w: --shard %s: %d runs leave some of the %d shards nothing to do", config.ErrConfig, s, n, s.N)
	}
	return nil
}

// CampaignKey is what the shards of one campaign agree on: the
// configuration (seed set to the base seed, store left out) and the
// number of runs.
type CampaignKey struct {
	Base   int64         `json:"base"`
	Runs   int           `json:"runs"`
	Config config.Config `json:"config"`
}

// ShardManifest is the manifest of campaign c, shard c.Shard of a
// campaign of cfg (filled) and c.Total runs, started at started.
func ShardManifest(c *analysis.Campaign, cfg config.Config, started time.Time) (*shard.Manifest, error) {
	key := cfg
	key.Seed, key.Store = c.Base, ""
	m := &shard.Manifest{Kind: shard.KindRun, Name: cfg.Name, K: c.Shard.K, N: c.Shard.N, Total: c.Total,
		Interrupted: c.Interrupted || len(c.Runs) < c.Planned, Started: started.UTC(), Elapsed: time.Since(started), Version: Version()}
	if err := m.SetKey(CampaignKey{Base: c.Base, Runs: c.Total, Config: key}); err != nil {
		return nil, err
	}
	for j, r := range c.Runs {
		dir := r.Dir
		if rel, err := filepath.Rel(cfg.Store, dir); err == nil {
			dir = rel
		}
		if err := m.Add(c.Number(j)-1, dir, nil); err != nil {
			return nil, err
		}
	}
	return m, nil
}
