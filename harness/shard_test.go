package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
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

// Number is the campaign run number of a shard's runs, and 1, 2, ... of
// a whole campaign's.
func TestCampaignNumber(t *testing.T) {
	c := &analysis.Campaign{Runs: make([]*analysis.Result, 2)}
	if c.Number(0) != 1 || c.Number(1) != 2 {
		t.Errorf("unsharded numbers %d, %d", c.Number(0), c.Number(1))
	}
	c.Numbers = []int{2, 4}
	if c.Number(0) != 2 || c.Number(1) != 4 {
		t.Errorf("shard numbers %d, %d", c.Number(0), c.Number(1))
	}
}
