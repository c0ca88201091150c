package reports

import (
	"strings"

	"github.com/lockstorm/lockstorm/config"
)

// ReplayCommand is the lockstorm run command line that replays cfg's
// schedule with its seed: every setting that changed the run
// (config.ReplayArgs).
func ReplayCommand(cfg config.Config) string {
	return strings.Join(append([]string{"lockstorm run"}, config.ReplayArgs(cfg)...), " ")
}

// replayNote explains when ReplayCommand's line cannot repeat a run from
// flags alone: a lock supplied from Go code, or a scripted fault plan
// rather than one drawn from the seed. Empty when the line is enough.
func replayNote(cfg config.Config) string {
	switch {
	case cfg.Lock == "custom" || cfg.NewLock != nil:
		return "The lock under test was supplied from Go code (config.Config.NewLock): replay with the same Go test and seed."
	case cfg.Plan != nil:
		return "The faults were a scripted plan (see the fault plan below), not drawn from the seed: replay a catalogue row with lockstorm catalog --only N --seed S, or the same Go code."
	}
	return ""
}

// unknownReplay is said instead of a replay line when the stored
// configuration is empty (configEmpty).
const unknownReplay = "unknown, the stored configuration is empty"

// configEmpty reports whether cfg names none of the settings a replay
// needs (no lock, workload, nodes, clients or time limit): a test.json
// whose config is {} or missing. No command line can repeat such a run,
// and ReplayCommand's would be a row of empty quoted values.
func configEmpty(cfg config.Config) bool {
	return cfg.Lock == "" && cfg.Workload == "" && cfg.Nodes == 0 && cfg.Clients == 0 && cfg.TimeLimit == 0 && cfg.NewLock == nil
}

// replayText is ReplayCommand's line, or unknownReplay for an empty
// configuration.
func replayText(cfg config.Config) string {
	if configEmpty(cfg) {
		return unknownReplay
	}
	return ReplayCommand(cfg)
}
