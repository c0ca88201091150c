package reports

import (
	"strings"

	"github.com/lockstorm/lockstorm/harness"
)

// ReplayCommand is the lockstorm run command line that replays cfg's
// schedule with its seed: every setting that changed the run
// (harness.ReplayArgs).
func ReplayCommand(cfg harness.Config) string {
	return strings.Join(append([]string{"lockstorm run"}, harness.ReplayArgs(cfg)...), " ")
}

// replayNote explains when ReplayCommand's line cannot repeat a run from
// flags alone: a lock supplied from Go code, or a scripted fault plan
// rather than one drawn from the seed. Empty when the line is enough.
func replayNote(cfg harness.Config) string {
	switch {
	case cfg.Lock == "custom" || cfg.NewLock != nil:
		return "The lock under test was supplied from Go code (harness.Config.NewLock): replay with the same Go test and seed."
	case cfg.Plan != nil:
		return "The faults were a scripted plan (see the fault plan below), not drawn from the seed: replay a catalogue row with lockstorm catalog --only N --seed S, or the same Go code."
	}
	return ""
}
