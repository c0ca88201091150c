package campaign

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/workpool"
	"github.com/lockstorm/lockstorm/reports"
)

// Spec is a campaign to run: its kind (the command), an optional name,
// its cells and the shared flags.
type Spec struct {
	Kind, Name string
	Cells      []Cell
	Flags      config.Campaign
	// SeedOf, when set, is the seed of a cell's k-th run (k from 1);
	// default k.
	SeedOf func(k int) int64
	// Extra is what the command needs to rebuild its outputs from merged
	// shards (a sweep's grid): part of the shards' key, and Report.Extra.
	Extra any
}

// Options tune Run.
type Options struct {
	// Runner runs one run and writes its report (default RunReported).
	Runner harness.RunFunc
	// Progress receives one line per finished run (ProgressLine).
	Progress io.Writer
	// OnResult, when set, is called with each finished run (concurrently
	// under --parallel) before its Result is let go.
	OnResult func(o *Outcome, res *analysis.Result)
	// KeepResults keeps each run's Result in its Outcome.
	KeepResults bool
	// Resume, when set, gives the outcome of a run finished before,
	// which is then not run again.
	Resume func(c *Cell, seed int64) (*Outcome, bool)
	// StopAfter, when set, ends the campaign after a run it reports true
	// for: the report is then Stopped, not Interrupted.
	StopAfter func(o *Outcome) bool
}

// Report is a finished (or interrupted) campaign.
type Report struct {
	Kind     string    `json:"kind"`
	Name     string    `json:"name,omitempty"`
	Dir      string    `json:"-"`        // the campaign's folder in the store
	Outcomes []Outcome `json:"outcomes"` // the finished runs in order
	// Total counts the runs of the whole campaign, Planned this shard's.
	Total   int         `json:"total"`
	Planned int         `json:"planned"`
	Shard   shard.Shard `json:"-"`
	// Interrupted is set when ctx ended before every planned run ran.
	Interrupted bool          `json:"interrupted,omitempty"`
	Started     time.Time     `json:"started"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	// Cells are the cell claims judged over each cell's runs.
	Cells []CellJudged `json:"cells,omitempty"`
	// Stopped says why Options.StopAfter ended the campaign early.
	Stopped  string          `json:"stopped,omitempty"`
	Extra    json.RawMessage `json:"extra,omitempty"` // Spec.Extra
	Manifest string          `json:"-"`               // the shard manifest's path, if sharded
}

// item is one run of the campaign, at index i of its order.
type item struct {
	i    int
	cell *Cell
	seed int64
}

// Select keeps the cells named in only (all when empty); a name that is
// no cell's is an error wrapping config.ErrConfig that lists the names.
func Select(cells []Cell, only []string) ([]Cell, error) {
	if len(only) == 0 {
		return cells, nil
	}
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	var out []Cell
	for _, n := range only {
		i := slices.Index(names, n)
		if i < 0 {
			return nil, fmt.Errorf("%w: --only: no cell %q; the cells are %s", config.ErrConfig, n, strings.Join(names, ", "))
		}
		out = append(out, cells[i])
	}
	return out, nil
}

// items is the campaign's order: every cell with seeds seedOf(1..seeds).
func items(cells []Cell, seeds int, seedOf func(int) int64) []item {
	if seedOf == nil {
		seedOf = func(k int) int64 { return int64(k) }
	}
	var out []item
	for c := range cells {
		for s := 1; s <= seeds; s++ {
			out = append(out, item{i: len(out), cell: &cells[c], seed: seedOf(s)})
		}
	}
	return out
}

// Run runs the campaign's share of this shard and writes its folder (and
// manifest). When ctx ends, the runs under way stop and no other starts.
func Run(ctx context.Context, spec Spec, opt Options) (*Report, error) {
	cells, err := Select(spec.Cells, spec.Flags.Only)
	if err != nil {
		return nil, err
	}
	if opt.Runner == nil {
		opt.Runner = RunReported
	}
	all := items(cells, max(spec.Flags.Seeds, 1), spec.SeedOf)
	sh := spec.Flags.Shard
	rep := &Report{Kind: spec.Kind, Name: spec.Name, Total: len(all), Shard: sh, Started: time.Now()}
	if spec.Extra != nil {
		if rep.Extra, err = json.Marshal(spec.Extra); err != nil {
			return nil, err
		}
	}
	mine := slices.DeleteFunc(all, func(it item) bool { return !sh.Owns(it.i) })
	rep.Planned = len(mine)
	out := make([]*Outcome, len(mine))
	var (
		mu     sync.Mutex
		done   int
		cfgErr error
	)
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workpool.Run(ctx, len(mine), max(spec.Flags.Parallel, 1), func(ctx context.Context, j int) {
		o, err := resumeOrRun(ctx, mine[j], spec.Flags, opt)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && cfgErr == nil {
			cfgErr = err
			cancel()
		}
		if o == nil {
			return
		}
		out[j] = o
		done++
		if opt.Progress != nil {
			fmt.Fprintln(opt.Progress, ProgressLine(done, len(mine), *o))
		}
		if opt.StopAfter != nil && rep.Stopped == "" && opt.StopAfter(o) {
			rep.Stopped = "stopped after " + o.Label()
			cancel()
		}
	})
	for _, o := range out {
		if o != nil {
			rep.Outcomes = append(rep.Outcomes, *o)
		}
	}
	if cfgErr != nil {
		return nil, cfgErr
	}
	rep.judgeCells(cells)
	rep.Interrupted = (len(rep.Outcomes) < rep.Planned && rep.Stopped == "") || outer.Err() != nil
	rep.Elapsed = time.Since(rep.Started)
	return rep, rep.write(spec)
}

// RunReported runs cfg and writes its report (lockstorm.Run); a report
// not written is a *reports.WriteError beside the result.
func RunReported(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
	res, err := harness.Run(ctx, cfg)
	if err != nil {
		return res, err
	}
	return res, reports.Write(res)
}

// resumeOrRun is Options.Resume's outcome, else runItem's.
func resumeOrRun(ctx context.Context, it item, f config.Campaign, opt Options) (*Outcome, error) {
	if opt.Resume != nil && it.cell.Skip == "" && it.cell.Broken == "" {
		if o, ok := opt.Resume(it.cell, it.seed); ok {
			o.Index, o.Cell, o.Seed, o.Resumed = it.i, it.cell.Name, it.seed, true
			return o, nil
		}
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	return runItem(ctx, it, f, opt)
}

// runItem runs one item; nil when ctx ended first. A configuration error
// is the campaign's error: every other run would have it too.
func runItem(ctx context.Context, it item, f config.Campaign, opt Options) (*Outcome, error) {
	o := &Outcome{Index: it.i, Cell: it.cell.Name, Seed: it.seed, Verdict: checker.Unknown}
	switch {
	case it.cell.Skip != "":
		o.Skipped = it.cell.Skip
		return o, nil
	case it.cell.Broken != "":
		o.Error = it.cell.Broken
		return o, nil
	}
	cfg := it.cell.Config
	cfg.Seed = it.seed
	cfg.Store = cmp.Or(cfg.Store, f.Store())
	start := time.Now()
	res, err := opt.Runner(ctx, cfg)
	o.Elapsed = time.Since(start)
	err, reportErr := reports.SplitError(err)
	switch {
	case (err != nil || res.Interrupted) && ctx.Err() != nil:
		return nil, nil
	case errors.Is(err, config.ErrConfig):
		return nil, fmt.Errorf("%w: %s: %s", config.ErrConfig, it.cell.Name, strings.TrimPrefix(firstLine(err), config.ErrConfig.Error()+": "))
	case err != nil:
		o.Error = firstLine(err)
		return o, nil
	}
	judge(o, it.cell, res)
	if reportErr != nil {
		o.Error = "report not written: " + firstLine(reportErr)
	}
	if opt.OnResult != nil {
		opt.OnResult(o, res)
	}
	if !opt.KeepResults {
		o.Result = nil
	}
	return o, nil
}

// judge fills o from the finished run res of cell c.
func judge(o *Outcome, c *Cell, res *analysis.Result) {
	o.Result, o.Verdict, o.Dir = res, res.Verdict.Valid, res.Dir
	o.Replay = reports.Replay(res)
	for _, cl := range c.Claims {
		holds, seen := cl.Judge(res)
		o.Claims = append(o.Claims, Judged{Name: cl.Name, Holds: holds, Seen: seen})
	}
}

// judgeCells judges every cell claim over the cell's finished runs.
func (r *Report) judgeCells(cells []Cell) {
	for _, c := range cells {
		if len(c.CellClaims) == 0 || c.Skip != "" {
			continue
		}
		runs := slices.DeleteFunc(slices.Clone(r.Outcomes), func(o Outcome) bool { return o.Cell != c.Name })
		for _, cl := range c.CellClaims {
			holds, seen := cl.Judge(runs)
			r.Cells = append(r.Cells, CellJudged{Cell: c.Name, Judged: Judged{Name: cl.Name, Holds: holds, Seen: seen}})
		}
	}
}

// Status is the campaign's outcome, which the exit status follows: its
// claims and runs merged, Unknown at best when interrupted.
func (r *Report) Status() checker.Validity {
	out := checker.Valid
	if r.Interrupted {
		out = checker.Unknown
	}
	for _, c := range r.Cells {
		out = checker.Merge(out, c.Holds)
	}
	for _, o := range r.Outcomes {
		if o.Skipped == "" && (len(o.Claims) > 0 || o.Error != "") {
			out = checker.Merge(out, o.Holds())
		}
	}
	return out
}

// firstLine is err's message up to its first newline.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
