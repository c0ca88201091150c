package harness

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/internal/store"
)

// Checkers returns the checker composition for a run: res.Config decides
// the liveness requirements, res.Final (the resource's counter values
// after the run, nil when unknown) feeds the lost-update count, and
// res.Writes (the resource's own log of writes and fenced reads) the
// fencing checker.
func Checkers(res *Result) *checker.Composite {
	var log []checker.ServerWrite
	for _, w := range res.Writes {
		if !w.Enter {
			log = append(log, checker.ServerWrite{Key: w.Key, Value: w.Value, Fence: w.Fence, Accepted: w.Accepted, Read: w.Read, Time: w.Time})
		}
	}
	return checkersWith(res, log)
}

// checkersWith is Checkers with the fencing checker's server log given.
func checkersWith(res *Result, log []checker.ServerWrite) *checker.Composite {
	cfg := res.Config
	lv := &checker.Liveness{
		Fair:            cfg.Fair || cfg.NewLock == nil && fifoLock(cfg.Lock), // runs stored before Fair existed
		RequireRecovery: !cfg.SkipRecoveryCheck,
		MaxWait:         cfg.MaxWait,
	}
	return checker.Standard(checker.Options{
		Lock:      lockChecker(cfg),
		Resource:  &checker.Resource{FinalValues: res.Final},
		Liveness:  lv,
		Fencing:   true, // valid and "not applicable" when the lock issues no tokens
		ServerLog: log,
	})
}

// lockChecker is the lock checker with the run's drift allowance
// (Config.Drift, Config.DriftFactor; zero is the default, negative none).
func lockChecker(cfg Config) *checker.Lock {
	l := checker.NewLock()
	if cfg.Drift != 0 {
		l.Drift = max(cfg.Drift, 0)
	}
	if cfg.DriftFactor != 0 {
		l.DriftFactor = max(cfg.DriftFactor, 0)
	}
	return l
}

// segmentedMin is the number of records from which Check cuts the history
// into segments; below it the whole check keeps porcupine's search for
// the report's porcupine pages (drawn for at most
// checker.VisualizeMaxOps lock ops).
//
// The segmented check gives the whole check's verdicts, anomaly kinds and
// op indices (checker's equivalence tests, the counter's carry included:
// a cut is only taken where each key's value is exact).
var segmentedMin = 200_000

// Check runs the checkers over res.History (or, for a big history, over
// res.HistoryFile, streamed: checker.Composite.CheckFile; the coverage
// reads either in one pass), sets res.Verdict, and writes
// results.json into res.Dir (when set). The verdict of an incomplete run
// (res.Incomplete) is at best unknown, and so is the verdict of a run
// whose faults fell short of the coverage bar (res.Coverage, see
// demoteUnexercised).
func Check(ctx context.Context, res *Result) error {
	if res.HistoryFile != "" {
		if err := checkFile(ctx, res); err != nil {
			return err
		}
		return finishCheck(res)
	}
	if len(res.History) > 0 {
		res.Records = len(res.History) // else a refused big history's count stays
	}
	c := Checkers(res)
	if len(res.History) >= segmentedMin {
		// same verdicts, anomalies and op indices, checked in parallel
		// segments (see checker.Composite.CheckSegmented)
		res.Verdict = c.CheckSegmented(ctx, res.History)
	} else {
		res.Verdict = c.Check(ctx, res.History)
	}
	var err error
	if res.Coverage, err = computeCoverage(res); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return finishCheck(res)
}

// checkFile checks the big history res.HistoryFile streamed and computes
// its coverage from the file. The server log (writes.jsonl) is read
// whole: the fencing checker takes it whole.
func checkFile(ctx context.Context, res *Result) error {
	log, err := serverLog(res)
	if err != nil {
		return err
	}
	v, _, err := checkersWith(res, log).CheckFile(ctx, res.HistoryFile) // warnings: Load's and the run's own
	if err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	res.Verdict = v
	if res.Coverage, err = computeCoverage(res); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// finishCheck demotes the verdict of an incomplete or unexercised run and
// writes results.json.
func finishCheck(res *Result) error {
	demoteIncomplete(res)
	demoteUnexercised(res)
	if res.Dir == "" {
		return nil
	}
	return store.WriteJSON(filepath.Join(res.Dir, store.ResultsFile), resultsFile{Result: res.Verdict,
		Interrupted: res.Interrupted, Incomplete: res.Incomplete, Coverage: res.Coverage})
}

// resultsFile is results.json: the checkers' verdict (its fields at the
// top level), whether the run was cut short, and what its faults touched.
// It is only written: read results.json into a checker.Result, whose
// UnmarshalJSON (promoted here) would leave the other fields unread.
type resultsFile struct {
	checker.Result
	// Interrupted is true for a run stopped by SIGINT or SIGTERM.
	Interrupted bool `json:"interrupted,omitempty"`
	// Incomplete says why the run's history cannot be trusted to be whole.
	Incomplete string `json:"incomplete,omitempty"`
	// Coverage is what the run's faults touched.
	Coverage *coverage.Report `json:"coverage,omitempty"`
}
