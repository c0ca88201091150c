package harness

import (
	"context"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
)

// Checkers returns the checker composition for a run: res.Config decides
// the liveness requirements, res.Final (the resource's counter values
// after the run, nil when unknown) feeds the lost-update count, and
// res.Writes (the resource's own write log) the fencing checker.
func Checkers(res *Result) *checker.Composite {
	cfg := res.Config
	lv := &checker.Liveness{
		Fair:            cfg.Lock == "fair" || cfg.Lock == "fair-naive",
		RequireRecovery: !cfg.SkipRecoveryCheck,
		MaxWait:         cfg.MaxWait,
	}
	var log []checker.ServerWrite
	for _, w := range res.Writes {
		if !w.Enter {
			log = append(log, checker.ServerWrite{Key: w.Key, Value: w.Value, Fence: w.Fence, Accepted: w.Accepted, Time: w.Time})
		}
	}
	return checker.Standard(checker.Options{
		Resource:  &checker.Resource{FinalValues: res.Final},
		Liveness:  lv,
		Fencing:   true, // valid and "not applicable" when the lock issues no tokens
		ServerLog: log,
	})
}

// Check runs the checkers over res.History, sets res.Verdict, and writes
// results.json into res.Dir (when set). The verdict of an incomplete run
// (res.Incomplete) is at best unknown.
func Check(ctx context.Context, res *Result) error {
	res.Verdict = Checkers(res).Check(ctx, res.History)
	demoteIncomplete(res)
	if res.Dir == "" {
		return nil
	}
	return writeJSON(filepath.Join(res.Dir, ResultsFile), res.Verdict)
}
