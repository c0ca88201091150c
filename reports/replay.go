package reports

import (
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
)

// ReplayCommand is the lockstorm run command line that replays cfg's
// schedule with its seed: every setting that changed the run
// (config.ReplayArgs), a scripted plan as --fault-plan cfg.PlanFile.
func ReplayCommand(cfg config.Config) string {
	return strings.Join(append([]string{"lockstorm run"}, config.ReplayArgs(cfg)...), " ")
}

// ReplayConfig is res's configuration as its replay command states it: a
// scripted fault plan read from config.FaultPlanFile next to its report.
func ReplayConfig(res *analysis.Result) config.Config {
	cfg := res.Config
	if cfg.Plan != nil && res.Dir != "" {
		cfg.PlanFile = filepath.Join(res.Dir, config.FaultPlanFile)
	}
	return cfg
}

// Replay is the replay command of res (ReplayConfig), or a sentence saying
// why no command line can repeat it (replayNote).
func Replay(res *analysis.Result) string {
	cfg := ReplayConfig(res)
	switch note := replayNote(cfg); {
	case note != "":
		return note
	case configEmpty(cfg):
		return unknownReplay
	}
	return ReplayCommand(cfg)
}

// writeFaultPlan writes res's scripted fault plan next to its report, for
// its replay command's --fault-plan; nothing when its faults were drawn
// from the seed.
func writeFaultPlan(res *analysis.Result) error {
	if res.Config.Plan == nil {
		return nil
	}
	return config.WriteFaultPlan(filepath.Join(res.Dir, config.FaultPlanFile), res.Config.Plan)
}

// replayNote explains when ReplayCommand's line cannot repeat a run from
// flags alone: a lock supplied from Go code, or a scripted fault plan
// with no file to read it from. Empty when the line is enough.
func replayNote(cfg config.Config) string {
	switch {
	case cfg.Lock == "custom" || cfg.NewLock != nil:
		return "The lock under test was supplied from Go code (config.Config.NewLock): replay with the same Go test and seed."
	case cfg.Plan != nil && cfg.PlanFile == "":
		return "The faults were a scripted plan (see the fault plan below) and no fault-plan.json was written: replay with the same Go code and seed."
	}
	return ""
}

// unknownReplay is said instead of a replay line when the stored
// configuration is empty (configEmpty).
const unknownReplay = "unknown, the stored configuration is empty"

// configEmpty reports whether cfg names none of the settings a replay
// needs (a test.json whose config is {} or missing): no command line can
// repeat such a run.
func configEmpty(cfg config.Config) bool {
	return cfg.Lock == "" && cfg.Workload == "" && cfg.Nodes == 0 && cfg.Clients == 0 && cfg.TimeLimit == 0 && cfg.NewLock == nil
}
