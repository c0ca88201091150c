package power

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
)

// Spec is what Run runs: the scenarios and the targets; the seeds, the
// time limit, the store, the parallelism and the share come from the
// campaign flags (config.Campaign), as for every campaign.
type Spec struct {
	Scenarios []Scenario
	Targets   Targets
}

// Options tune Run.
type Options struct {
	// Runner runs each run and writes its report. Default lockstorm.Run.
	Runner harness.RunFunc
	// Progress receives the campaign's progress lines.
	Progress io.Writer
}

// bad is a one-line error wrapping config.ErrConfig (exit status 2).
func bad(format string, a ...any) error {
	return fmt.Errorf("%w: %s", config.ErrConfig, fmt.Sprintf(format, a...))
}

// Claims of the two kinds of scenario.
const (
	detectedClaim     = "detected: the broken lock's run is invalid"
	noFalseAlarmClaim = "no false alarm: the correct lock's run is not invalid"
)

// Cells are the scenarios as campaign cells: each run with the flags'
// time limit and store, a broken lock claiming detection (its run stops
// at its first live violation), a correct one no false alarm. Each configuration is checked (WithDefaults), so that
// a bad time limit fails before anything runs.
func (s Spec) Cells(f config.Campaign) ([]campaign.Cell, error) {
	if len(s.Scenarios) == 0 {
		return nil, bad("no scenario to run")
	}
	var out []campaign.Cell
	for _, sc := range s.Scenarios {
		c := sc.Config
		c.Name, c.TimeLimit, c.Store = sc.Name, f.TimeLimit(), f.Store()
		// A broken lock's run stops at its first live violation
		// (--until-invalid): its time to detect is read from the history
		// either way, and the rest of the run would prove nothing more.
		c.StopAtViolation = sc.Broken
		if _, err := c.WithDefaults(); err != nil {
			return nil, bad("%s: %s", sc.Name, strings.TrimPrefix(err.Error(), config.ErrConfig.Error()+": "))
		}
		claim := campaign.Claim{Name: noFalseAlarmClaim, Judge: func(res *analysis.Result) (checker.Validity, string) {
			return notInvalid(res.Verdict.Valid), "verdict " + res.Verdict.Valid.String()
		}}
		if sc.Broken {
			claim = campaign.Claim{Name: detectedClaim, Judge: func(res *analysis.Result) (checker.Validity, string) {
				return isInvalid(res.Verdict.Valid), "verdict " + res.Verdict.Valid.String()
			}}
		}
		out = append(out, campaign.Cell{Name: sc.Name, Config: c, Claims: []campaign.Claim{claim}})
	}
	return out, nil
}

// notInvalid judges "not invalid" of a verdict: an unknown verdict
// cannot say.
func notInvalid(v checker.Validity) checker.Validity {
	if v == checker.Unknown {
		return checker.Unknown
	}
	return map[bool]checker.Validity{true: checker.Valid, false: checker.Invalid}[v == checker.Valid]
}

// isInvalid judges "invalid" of a verdict: an unknown verdict cannot
// say.
func isInvalid(v checker.Validity) checker.Validity {
	if v == checker.Unknown {
		return checker.Unknown
	}
	return map[bool]checker.Validity{true: checker.Valid, false: checker.Invalid}[v == checker.Invalid]
}

// oneLine is err's message up to its first newline.
func oneLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// Run runs every scenario of spec as a campaign (f: seeds 1..N, time
// limit, store, parallel, shard, only) and aggregates the runs into the
// power table. A run that could not be carried out is an error outcome of
// its row. When ctx ends the runs in progress heal and stop, no new run
// starts, and the report holds the finished runs with Interrupted set.
func Run(ctx context.Context, spec Spec, f config.Campaign, opt Options) (*Report, *campaign.Report, error) {
	if spec.Targets == (Targets{}) {
		spec.Targets = DefaultTargets
	}
	cells, err := spec.Cells(f)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	detect := map[int]Outcome{}
	camp, err := campaign.Run(ctx, campaign.Spec{Kind: "power", Cells: cells, Flags: f}, campaign.Options{Runner: opt.Runner, Progress: opt.Progress,
		OnResult: func(o *campaign.Outcome, res *analysis.Result) {
			d := Outcome{}
			d.Detect, d.DetectKnown = DetectionTime(res.Verdict, res.History)
			mu.Lock()
			detect[o.Index] = d
			mu.Unlock()
		}})
	if err != nil {
		return nil, camp, err
	}
	rep := &Report{Source: SourceRun, Seeds: f.Seeds, TimeLimit: f.TimeLimit(), Targets: spec.Targets,
		Interrupted: camp.Interrupted, Generated: time.Now().UTC()}
	for _, sc := range spec.Scenarios {
		var finished []Outcome
		for _, o := range camp.Outcomes {
			if o.Cell != sc.Name || o.Error == "interrupted" {
				continue
			}
			d := detect[o.Index]
			d.Seed, d.Dir, d.Verdict, d.Error = o.Seed, o.Dir, o.Verdict, o.Error
			finished = append(finished, d)
		}
		rep.Rows = append(rep.Rows, Aggregate(sc, finished, spec.Targets))
	}
	return rep, camp, nil
}
