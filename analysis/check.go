package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/resource"
)

// Checkers returns the checker composition for a run: res.Config decides
// the liveness requirements, res.Final (the resource's counter values
// after the run, nil when unknown) feeds the lost-update count, and
// res.Writes (the resource's own log of writes and fenced reads) the
// fencing checker.
func Checkers(res *Result) *checker.Composite {
	log := &checker.ServerLog{}
	for i := range res.Writes {
		addLogged(log, &res.Writes[i])
	}
	return checkersWith(res, log)
}

// checkersWith is Checkers with the fencing checker's server log given.
func checkersWith(res *Result, log *checker.ServerLog) *checker.Composite {
	cfg := res.Config
	lv := &checker.Liveness{
		Fair:            cfg.Fair || cfg.NewLock == nil && config.FIFOLock(cfg.Lock), // runs stored before Fair existed
		RequireRecovery: !cfg.SkipRecoveryCheck,
		MaxWait:         cfg.MaxWait,
	}
	return checker.Standard(checker.Options{
		Lock:     lockChecker(cfg),
		Resource: &checker.Resource{FinalValues: res.Final},
		Liveness: lv,
		Fencing:  true, // valid and "not applicable" when the lock issues no tokens
		Fenced:   cfg.Fencing,
		Server:   log,
	})
}

// DriftAllowance is the run's clock-drift allowance for a lease of the
// run's TTL, as the lock checker grants it.
func DriftAllowance(cfg config.Config) time.Duration {
	l := lockChecker(cfg)
	return lease.Allowance(cfg.TTL, l.Drift, l.DriftFactor)
}

// LeaseOptions are the lease model's options of the run's checkers: the
// lock checker's drift allowance (see lease.Tracker).
func LeaseOptions(cfg config.Config) lease.Options {
	l := lockChecker(cfg)
	return lease.Options{Drift: l.Drift, DriftFactor: l.DriftFactor}
}

// lockChecker is the lock checker with the run's drift allowance
// (Config.Drift, Config.DriftFactor; zero is the default, negative none).
func lockChecker(cfg config.Config) *checker.Lock {
	l := checker.NewLock()
	if cfg.Drift != 0 {
		l.Drift = max(cfg.Drift, 0)
	}
	if cfg.DriftFactor != 0 {
		l.DriftFactor = max(cfg.DriftFactor, 0)
	}
	return l
}

// Check runs the checkers over the run's history (res.History: the
// records in memory, or history.jsonl read streamed; one engine either
// way, see checker.Composite.CheckSource), computes the
// coverage, sets res.Verdict, and writes results.json into res.Dir (when
// set). The verdict of an incomplete run (res.Incomplete) is at best
// unknown, and so is the verdict of a run whose faults fell short of the
// coverage bar (res.Coverage, see demoteUnexercised).
func Check(ctx context.Context, res *Result) error { return checkAlso(ctx, res, nil) }

// checkAlso is Check handing every record it reads to also (nil: none),
// besides the coverage (see checker.Composite.Also).
func checkAlso(ctx context.Context, res *Result, also func(o *history.Op, at history.Pos)) error {
	if res.History == nil {
		res.History = history.Slice(nil)
	}
	if res.Records == 0 { // a result built in memory: count its records
		_ = history.Each(res.History, func(*history.Op) bool { res.Records++; return true })
	}
	log, err := serverLog(res)
	if err != nil {
		return err
	}
	c := checkersWith(res, log)
	cov := newCoverage(res)
	var r *relay
	if cov != nil || also != nil {
		r = newRelay(func(o *history.Op, at history.Pos) { // they ride on the check's read
			if cov != nil {
				cov.Add(o)
			}
			if also != nil {
				also(o, at)
			}
		})
		c.Also = r.add
	}
	if res.History.Path() != "" { // streamed
		defer limitMemory(res.Records, checkBytesPerRecord)()
	}
	v, _, err := c.CheckSource(ctx, res.History) // warnings: Load's and the run's own
	if r != nil {
		r.wait()
	}
	if err != nil {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	res.Verdict = v
	if res.Coverage, err = coverageOf(res, cov); err != nil {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return finishCheck(res)
}

// finishCheck demotes the verdict of an incomplete or unexercised run and
// writes results.json.
func finishCheck(res *Result) error {
	demoteIncomplete(res)
	demoteUnexercised(res)
	demoteClockEvents(res)
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

// serverLog is the fencing checker's server log: the resource's writes
// and fenced reads (not its api entries), read with res.EachWrite and
// digested as they are read (see checker.ServerLog): the log itself (a
// million entries at 10M records) is never held.
func serverLog(res *Result) (*checker.ServerLog, error) {
	log := &checker.ServerLog{}
	if err := res.EachWrite(func(w *resource.Write) { addLogged(log, w) }); err != nil {
		return nil, err
	}
	return log, nil
}

// addLogged adds the resource's log entry w to the server log, unless it
// is an api entry (the fencing checker reads writes and fenced reads).
func addLogged(log *checker.ServerLog, w *resource.Write) {
	if !w.Enter {
		log.Add(&checker.ServerWrite{Key: w.Key, Value: w.Value, Fence: w.Fence, Accepted: w.Accepted, Read: w.Read, Time: w.Time})
	}
}
