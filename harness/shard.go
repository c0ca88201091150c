package harness

import (
	"fmt"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// A sharded campaign (Hooks.Shard) runs run i (1-based) of the n when
// (i − 1) mod N is its K, with the seed RunSeed(base, i) the unsharded
// campaign gives it, so the union of the shards is the unsharded campaign.
// Its base seed must be given (a drawn one would differ per machine) and
// it cannot stop at the first invalid run (the other machines would not
// know).

// CheckShard refuses a shard of a campaign of n runs that could not be
// merged (`run --runs n --shard K/N`); errors wrap config.ErrConfig.
func CheckShard(cfg config.Config, n int, untilInvalid bool, s shard.Shard) error {
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
