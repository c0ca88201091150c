package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// A campaign shard that could not be merged is refused before any run.
func TestCampaignShardRefusals(t *testing.T) {
	cfg := config.Config{Lock: "single", Workload: "counter"}
	for _, c := range []struct {
		seed  int64
		n     int
		until bool
		s     shard.Shard
		want  string
	}{
		{0, 4, false, shard.Shard{K: 0, N: 2}, "needs --seed"},
		{1, 4, true, shard.Shard{K: 0, N: 2}, "--until-invalid"},
		{1, 2, false, shard.Shard{K: 0, N: 3}, "nothing to do"},
	} {
		cfg.Seed = c.seed
		err := CheckShard(cfg, c.n, c.until, c.s)
		if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c, err, c.want)
		}
	}
	if err := CheckShard(config.Config{}, 3, true, shard.Shard{}); err != nil {
		t.Errorf("unsharded campaign refused: %v", err)
	}
}
