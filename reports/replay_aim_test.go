package reports

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/config"
)

// The replay line carries --target-holder and --min-coverage only when
// they differ from the defaults; an explicit 0 (stored as -1) replays as 0.
func TestReplayCommandAimAndCoverage(t *testing.T) {
	base := config.Config{Lock: "single", Workload: "counter", Nodes: 1, Clients: 3, Seed: 5, Persistence: "none"}
	for _, tc := range []struct {
		aim       float64
		cover     int
		want, not []string
	}{
		{0, 0, nil, []string{"--target-holder", "--min-coverage"}},
		{config.DefaultTargetHolder, config.DefaultMinCoverage, nil, []string{"--target-holder", "--min-coverage"}},
		{-1, -1, []string{"--target-holder 0", "--min-coverage 0"}, nil},
		{0.5, 3, []string{"--target-holder 0.5", "--min-coverage 3"}, nil},
	} {
		c := base
		c.TargetHolder, c.MinCoverage = tc.aim, tc.cover
		got := ReplayCommand(c)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("aim %v cover %d: %q lacks %q", tc.aim, tc.cover, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("aim %v cover %d: %q has %q", tc.aim, tc.cover, got, w)
			}
		}
	}
}
