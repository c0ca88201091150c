package harness

import (
	"fmt"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// CheckShard refuses (config.ErrConfig) a shard of a campaign of n runs
// that could not be merged: shard K runs run i when (i − 1) mod N is K,
// with seed RunSeed(base, i), so base must be given and no shard may stop
// early.
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
