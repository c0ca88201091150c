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
	// Completed is set once the run ended (time limit or interrupt),
	// healed, and its whole history is on disk: Records records. A run
	// folder without it was killed, crashed or is still running.
	Completed bool `json:"completed,omitempty"`
	Records   int  `json:"records,omitempty"`
	// Incomplete says why the run was cut short (a failed history write);
	// such a run is never valid.
	Incomplete string `json:"incomplete,omitempty"`
	// Overhead is what the harness added to the run (records/s, proxy
	// latency), written with the completion mark.
	Overhead *Overhead `json:"overhead,omitempty"`
	// ClockEvents are the clock steps seen during the run (Result.ClockEvents).
	ClockEvents []clockwatch.Event `json:"clock_events,omitempty"`
}
