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

// Checkers returns the checker composition for a run, its fencing
// checker fed res.Writes.
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

// DriftAllowance is the lock checker's drift allowance for the run's TTL.
func DriftAllowance(cfg config.Config) time.Duration {
	l := lockChecker(cfg)
	return lease.Allowance(cfg.TTL, l.Drift, l.DriftFactor)
}

// LeaseOptions are the lease model's options: the lock checker's drift.
func LeaseOptions(cfg config.Config) lease.Options {
	l := lockChecker(cfg)
	return lease.Options{Drift: l.Drift, DriftFactor: l.DriftFactor}
}

// FollowLeases is the lease tracker the passes riding on the check share
// (coverage's, the report's): LeaseOptions, forgetting leases once ended.
func FollowLeases(cfg config.Config) *lease.Tracker {
	opt := LeaseOptions(cfg)
	opt.Forget = true
	return lease.NewTracker(opt)
}

// A Rider is a pass riding on the check's read (the report's): Add takes
// every record, at its position in the history, with the lease events it
// caused (a FollowLeases tracker's); End takes the events that end the
// leases still held, once the check is done.
type Rider interface {
	Add(o *history.Op, at history.Pos, leases []lease.Event)
	End(leases []lease.Event)
}

// lockChecker is the lock checker with the run's drift (zero the
// default, negative none).
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

// Check runs the checkers and the coverage over res.History, sets
// res.Verdict (at best unknown for an incomplete or unexercised run) and
// writes results.json into res.Dir when set.
func Check(ctx context.Context, res *Result) error { return checkAlso(ctx, res, nil) }

// checkAlso is Check with rider (may be nil) riding on its read.
func checkAlso(ctx context.Context, res *Result, rider Rider) error {
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
	leases := FollowLeases(res.Config) // one lease model for the passes that ride on the check's read
	if cov != nil || rider != nil {
		c.Also = func(o *history.Op, at history.Pos) {
			evs := leases.Add(o)
			if cov != nil {
				cov.Add(o, evs)
			}
			if rider != nil {
				rider.Add(o, at, evs)
			}
		}
	}
	if res.History.Path() != "" { // streamed
		defer limitMemory(res.Records, checkBytesPerRecord)()
	}
	v, _, err := c.CheckSource(ctx, res.History) // warnings: Load's and the run's own
	if err != nil {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	res.Verdict = v
	final := leases.Finish()
	if res.Coverage, err = coverageOf(res, cov, final); err != nil {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	if rider != nil {
		rider.End(final)
	}
	demoteIncomplete(res)
	demoteUnexercised(res)
	demoteClockEvents(res)
	if res.Dir == "" {
		return nil
	}
	return store.WriteJSON(filepath.Join(res.Dir, store.ResultsFile), resultsFile{Result: res.Verdict,
		Interrupted: res.Interrupted, Incomplete: res.Incomplete, Coverage: res.Coverage})
}

// resultsFile is results.json, only written (checker.Result's promoted
// UnmarshalJSON would leave the other fields unread: see readResults).
type resultsFile struct {
	checker.Result
	Interrupted bool             `json:"interrupted,omitempty"`
	Incomplete  string           `json:"incomplete,omitempty"`
	Coverage    *coverage.Report `json:"coverage,omitempty"`
}

// addLogged adds the resource's log entry w unless it is an api entry.
func addLogged(log *checker.ServerLog, w *resource.Write) {
	if !w.Enter {
		log.Add(&checker.ServerWrite{Key: w.Key, Value: w.Value, Fence: w.Fence, Accepted: w.Accepted, Read: w.Read, Time: w.Time})
	}
}

// serverLog is the fencing checker's server log, digested as
// res.EachWrite reads it (the log itself is never held).
func serverLog(res *Result) (*checker.ServerLog, error) {
	log := &checker.ServerLog{}
	return log, res.EachWrite(func(w *resource.Write) { addLogged(log, w) })
}
