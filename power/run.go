package power

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/workpool"
	"github.com/lockstorm/lockstorm/reports"
)

// Spec is what Run runs.
type Spec struct {
	Scenarios []Scenario
	// Seeds runs seeds 1..Seeds of every scenario. Default 20.
	Seeds int
	// TimeLimit is each run's length. Default 20s.
	TimeLimit time.Duration
	// Store is the store folder the runs go to (one test per scenario).
	// Default store/power.
	Store string
	// Parallel is how many runs go on at once. Default 1.
	Parallel int
	Targets  Targets
}

// Defaults of Spec.
const (
	DefaultSeeds     = 20
	DefaultTimeLimit = 20 * time.Second
	DefaultStore     = "store/power"
)

// Options tune Run.
type Options struct {
	// Runner runs each run and writes its report. Default lockstorm.Run;
	// a report it could not write is only told through Progress.
	Runner harness.RunFunc
	// Progress, when set, is told of each finished run (from several
	// goroutines when Parallel > 1, never at once).
	Progress func(Event)
}

// Event is one finished run.
type Event struct {
	Scenario string
	Outcome  Outcome
	// Done and Total count runs finished and runs planned.
	Done, Total int
	// ReportError is the report writer's error, if any.
	ReportError string
}

// bad is a one-line error wrapping config.ErrConfig (exit status 2).
func bad(format string, a ...any) error {
	return fmt.Errorf("%w: %s", config.ErrConfig, fmt.Sprintf(format, a...))
}

// withDefaults fills zero fields and refuses bad ones.
func (s Spec) withDefaults() (Spec, error) {
	if s.Seeds == 0 {
		s.Seeds = DefaultSeeds
	}
	if s.TimeLimit == 0 {
		s.TimeLimit = DefaultTimeLimit
	}
	if s.Store == "" {
		s.Store = DefaultStore
	}
	if s.Parallel == 0 {
		s.Parallel = 1
	}
	if s.Targets == (Targets{}) {
		s.Targets = DefaultTargets
	}
	switch {
	case s.Seeds < 0:
		return s, bad("--seeds must be positive, got %d", s.Seeds)
	case s.TimeLimit < 0:
		return s, bad("--time-limit must be positive, got %v", s.TimeLimit)
	case s.Parallel < 0:
		return s, bad("--parallel must be positive, got %d", s.Parallel)
	case len(s.Scenarios) == 0:
		return s, bad("no scenario to run")
	}
	return s, nil
}

// configs returns the configuration of every run of spec, scenario by
// scenario, seeds in order. Each is checked (WithDefaults), so that a bad
// time limit fails before anything runs.
func (s Spec) configs() ([][]config.Config, error) {
	out := make([][]config.Config, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		for seed := 1; seed <= s.Seeds; seed++ {
			c := sc.Config
			c.Name, c.Seed, c.TimeLimit, c.Store = sc.Name, int64(seed), s.TimeLimit, s.Store
			if _, err := c.WithDefaults(); err != nil {
				return nil, bad("%s: %s", sc.Name, strings.TrimPrefix(err.Error(), config.ErrConfig.Error()+": "))
			}
			out[i] = append(out[i], c)
		}
	}
	return out, nil
}

// Run runs every scenario of spec for seeds 1..Seeds, at most Parallel
// runs at once, and aggregates them. A run that could not be carried out
// is an error outcome of its row, not a failure of Run. When ctx ends the
// runs in progress heal and stop, no new run starts, and the report holds
// the finished runs with Interrupted set. Errors (wrapping config.ErrConfig)
// for a bad spec, or a run the harness refuses as badly configured (e.g. a
// time limit too short for a fault kind); the other runs are then stopped.
func Run(ctx context.Context, spec Spec, opt Options) (*Report, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	cfgs, err := spec.configs()
	if err != nil {
		return nil, err
	}
	if opt.Runner == nil {
		opt.Runner = lockstorm.Run
	}
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var cfgErr error
	type job struct{ scen, seed int }
	var jobs []job
	for i := range cfgs {
		for j := range cfgs[i] {
			jobs = append(jobs, job{i, j})
		}
	}
	outs := make([][]*Outcome, len(cfgs))
	for i := range cfgs {
		outs[i] = make([]*Outcome, len(cfgs[i]))
	}
	var (
		mu          sync.Mutex
		done        int
		interrupted bool
	)
	workpool.Run(ctx, len(jobs), spec.Parallel, func(ctx context.Context, k int) {
		j := jobs[k]
		o, repErr, stopped, err := runOne(ctx, opt, cfgs[j.scen][j.seed])
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			if cfgErr == nil {
				cfgErr = err
			}
			cancel()
		case stopped:
			interrupted = true
		default:
			outs[j.scen][j.seed] = &o
			done++
			if opt.Progress != nil {
				opt.Progress(Event{Scenario: spec.Scenarios[j.scen].Name, Outcome: o, Done: done, Total: len(jobs), ReportError: repErr})
			}
		}
	})
	if cfgErr != nil {
		return nil, cfgErr
	}
	rep := &Report{Source: SourceRun, Seeds: spec.Seeds, TimeLimit: spec.TimeLimit, Targets: spec.Targets,
		Interrupted: interrupted || outer.Err() != nil && done < len(jobs), Generated: time.Now().UTC()}
	for i, sc := range spec.Scenarios {
		var finished []Outcome
		for _, o := range outs[i] {
			if o != nil {
				finished = append(finished, *o)
			}
		}
		rep.Rows = append(rep.Rows, Aggregate(sc, finished, spec.Targets))
	}
	return rep, nil
}

// runOne runs one configuration; stopped is true when ctx ended the run
// before its time limit (its outcome is then not kept); cfgErr is set when
// the harness refused cfg as badly configured.
func runOne(ctx context.Context, opt Options, cfg config.Config) (o Outcome, reportMsg string, stopped bool, cfgErr error) {
	o = Outcome{Seed: cfg.Seed}
	res, err := opt.Runner(ctx, cfg)
	err, reportErr := reports.SplitError(err)
	if res != nil {
		o.Dir = res.Dir
	}
	if errors.Is(err, config.ErrConfig) {
		return o, "", false, bad("%s: %s", cfg.Name, strings.TrimPrefix(oneLine(err), config.ErrConfig.Error()+": "))
	}
	if (res != nil && res.Interrupted) || (err != nil && ctx.Err() != nil) {
		return o, "", true, nil
	}
	if err != nil {
		o.Error = oneLine(err)
		return o, "", false, nil
	}
	o.Verdict = res.Verdict.Valid
	o.Detect, o.DetectKnown = DetectionTime(res.Verdict, res.History)
	if reportErr != nil {
		reportMsg = oneLine(reportErr)
	}
	return o, reportMsg, false, nil
}

// oneLine is err's message up to its first newline.
func oneLine(err error) string {
	msg := err.Error()
	for i, c := range msg {
		if c == '\n' {
			return msg[:i]
		}
	}
	return msg
}
