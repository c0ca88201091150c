package analysis

import (
	"github.com/lockstorm/lockstorm/clockwatch"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
)

// TestFile is test.json: the full configuration and the versions of what
// ran, rewritten at the end of the run with how it ended.
type TestFile struct {
	Config   config.Config     `json:"config"`
	Plan     *nemesis.Plan     `json:"plan,omitempty"`
	Versions map[string]string `json:"versions"`
	// Completed is set once the run ended, healed, with its whole history
	// (Records records) on disk.
	Completed   bool               `json:"completed,omitempty"`
	Records     int                `json:"records,omitempty"`
	Incomplete  string             `json:"incomplete,omitempty"` // why the run was cut short
	Overhead    *Overhead          `json:"overhead,omitempty"`
	ClockEvents []clockwatch.Event `json:"clock_events,omitempty"`
}
