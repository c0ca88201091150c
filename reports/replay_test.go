package reports

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/config"
)

// The replay line passes --fencing only for locks that issue fencing
// tokens (for the others `lockstorm run` refuses it), and --target-holder
// and --min-coverage only when they differ from the defaults; an explicit
// 0 (stored as -1) replays as 0.
func TestReplayCommandFlags(t *testing.T) {
	aim := func(aim float64, cover int) config.Config {
		return config.Config{Lock: "single", Workload: "counter", Nodes: 1, Clients: 3, Seed: 5, Persistence: "none", TargetHolder: aim, MinCoverage: cover}
	}
	fenced := func(lock string) config.Config { return config.Config{Lock: lock, Fencing: true} }
	for _, tc := range []struct {
		c         config.Config
		want, not []string
	}{
		{aim(0, 0), nil, []string{"--target-holder", "--min-coverage"}},
		{aim(config.DefaultTargetHolder, config.DefaultMinCoverage), nil, []string{"--target-holder", "--min-coverage"}},
		{aim(-1, -1), []string{"--target-holder 0", "--min-coverage 0"}, nil},
		{aim(0.5, 3), []string{"--target-holder 0.5", "--min-coverage 3"}, nil},
		{fenced("fenced"), []string{"--fencing"}, nil},
		{fenced("fenced-redlock"), []string{"--fencing"}, nil},
		{fenced("redlock"), nil, []string{"--fencing"}},
		{fenced("renewable"), nil, []string{"--fencing"}},
	} {
		got := ReplayCommand(tc.c)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("lock %s aim %v cover %d: %q lacks %q", tc.c.Lock, tc.c.TargetHolder, tc.c.MinCoverage, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("lock %s aim %v cover %d: %q has %q", tc.c.Lock, tc.c.TargetHolder, tc.c.MinCoverage, got, w)
			}
		}
	}
}
