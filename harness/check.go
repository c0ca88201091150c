package harness

import (
	"context"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// Checkers returns the checker composition for a run of cfg. final holds
// the resource's counter values read after the run (nil when unknown, e.g.
// when re-checking a crashed run).
func Checkers(cfg Config, final map[string]int64) *checker.Composite {
	lv := &checker.Liveness{
		Fair:            cfg.Lock == "fair" || cfg.Lock == "fair-naive",
		RequireRecovery: !cfg.SkipRecoveryCheck,
		MaxWait:         cfg.MaxWait,
	}
	return checker.Standard(checker.Options{
		Resource: &checker.Resource{FinalValues: final},
		Liveness: lv,
		Fencing:  true, // valid and "not applicable" when the lock issues no tokens
	})
}

// Check runs the checkers over h and writes results.json into dir (when
// dir is not empty).
func Check(ctx context.Context, cfg Config, h history.History, final map[string]int64, dir string) (checker.Result, error) {
	res := Checkers(cfg, final).Check(ctx, h)
	if dir == "" {
		return res, nil
	}
	return res, writeJSON(filepath.Join(dir, ResultsFile), res)
}
