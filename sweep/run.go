package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

// Files of a sweep folder, store/sweeps/<name>/.
const (
	SpecFile         = "sweep.json"
	CellsDir         = "cells"
	TableMDFile      = "table.md"
	TableCSVFile     = "table.csv"
	ViolationsFile   = "violations.png"
	AvailabilityFile = "availability.png"
	IndexFile        = "index.html"
)

// Options tune Run.
type Options struct {
	// Runner runs each cell and writes its report. Default lockstorm.Run;
	// a report it could not write is noted in the cell, not fatal.
	Runner harness.RunFunc
	// Progress receives the campaign's progress line of each run.
	Progress io.Writer
}

// CellResult is one finished cell run, stored as cells/<id>.json.
type CellResult struct {
	Cell
	// Dir is the run's folder relative to the store root.
	Dir string `json:"dir"`
	Metrics
	// Elapsed is how long the run took, set-up and checks included.
	Elapsed time.Duration `json:"elapsed_ns"`
	// ReportError is the report writer's error, if any.
	ReportError string    `json:"report_error,omitempty"`
	Finished    time.Time `json:"finished"`
}

// Result is a sweep's outcome.
type Result struct {
	Spec Spec
	// Dir is the sweep folder.
	Dir string
	// Cells are the finished cells in grid order (resumed ones included).
	Cells []CellResult
	// Ran and Skipped count the cells run now and those resumed from
	// their files.
	Ran, Skipped int
	// Total is the number of runs this sweep (or shard) plans.
	Total int
	// Interrupted is set when ctx ended before every cell ran.
	Interrupted bool
	// Elapsed is how long this invocation took.
	Elapsed time.Duration
	// Recommendation is computed from the finished cells by
	// WriteOutputs (Recommend).
	Recommendation Recommendation
	// Campaign is the sweep as a campaign: its outcomes, summary, JUnit
	// and (sharded) manifest.
	Campaign *campaign.Report
}

// Complete reports whether every cell of the grid finished.
func (r *Result) Complete() bool { return len(r.Cells) == r.Total }

// Dir is the folder of the sweep named name in store.
func Dir(root, name string) string { return store.SweepDir(root, name) }

// storedSpec is sweep.json.
type storedSpec struct {
	Name string  `json:"name"`
	Key  specKey `json:"settings"`
	// Grid is the latest grid run under this name (informative).
	TTLs   []string `json:"ttl"`
	Renews []string `json:"renew"`
	Pauses []string `json:"pause"`
	Runs   int      `json:"runs"`
}

// measuredClaim is a sweep run's claim: a sweep measures, so its claim is
// that the run has a verdict; what it was (valid or invalid, lost
// updates...) is what the run showed, and an invalid run is a finding of
// the sweep, not a failure of it.
const measuredClaim = "measured: the run ends with a verdict"

// measured judges the claim on a run's metrics.
func measured(m Metrics) (checker.Validity, string) {
	lost := "?"
	if m.LostUpdates >= 0 {
		lost = fmt.Sprint(m.LostUpdates)
	}
	seen := fmt.Sprintf("%s, lost updates %s, acquire success %.0f%%, lock losses %d", m.Verdict, lost, 100*m.SuccessRate, m.LockLosses)
	if m.Verdict == checker.Unknown {
		return checker.Unknown, seen
	}
	return checker.Valid, seen
}

// CellName is the campaign cell of grid point c (its run left out):
// "ttl-200ms_renew-ttl3_pause-1.5s", what --only takes.
func CellName(c Cell) string {
	c.Run = 0
	return strings.TrimSuffix(c.ID(), "_run-0")
}

// Cells are the grid's points as campaign cells, in grid order: each
// point's runs are the campaign's seeds.
func (s Spec) Cells() []campaign.Cell {
	var out []campaign.Cell
	for _, c := range s.Grid.Cells(1) {
		out = append(out, campaign.Cell{Name: CellName(c), Config: s.Config(c),
			Claims: []campaign.Claim{{Name: measuredClaim, Judge: func(res *analysis.Result) (checker.Validity, string) {
				return measured(MetricsOf(res))
			}}}})
	}
	return out
}

// cellOf is the grid cell of the campaign cell named name and seed.
func (s Spec) cellOf(name string, seed int64) (Cell, bool) {
	for _, c := range s.Grid.Cells(1) {
		if CellName(c) == name {
			c.Run = int(seed)
			return c, true
		}
	}
	return Cell{}, false
}

// Run runs the sweep as a campaign (f: seeds, time limit, parallel,
// shard, only, store; package campaign): every grid point a cell, each of
// its runs a seed. A run whose cell file exists is resumed from it
// (unless spec.Fresh); each finished run writes its cell file. It then
// writes the table, heat maps and index.html of the finished cells,
// interrupted or not. Errors: ErrSpec when the folder holds a sweep with
// other fixed settings; config.ErrConfig when a run is refused as badly
// configured.
func Run(ctx context.Context, spec Spec, f config.Campaign, opt Options) (*Result, error) {
	dir := Dir(spec.Store, spec.Name)
	res := &Result{Spec: spec, Dir: dir}
	if err := prepare(dir, spec); err != nil {
		return res, err
	}
	f.Seeds, f.Run.TimeLimit, f.Run.Store = spec.Runs, spec.TimeLimit, spec.Store
	var mu sync.Mutex
	var cells []CellResult
	rep, err := campaign.Run(ctx, campaign.Spec{Kind: "sweep", Name: spec.Name, Cells: spec.Cells(), Flags: f, Extra: spec.ToRaw()},
		campaign.Options{Runner: opt.Runner, Progress: opt.Progress,
			Resume: func(c *campaign.Cell, seed int64) (*campaign.Outcome, bool) {
				cr, ok := spec.resume(c.Name, seed)
				if !ok {
					return nil, false
				}
				mu.Lock()
				defer mu.Unlock()
				cells = append(cells, cr)
				return outcomeOf(spec.Store, cr), true
			},
			OnResult: func(o *campaign.Outcome, run *analysis.Result) {
				cr, ok := spec.cellResult(o, run)
				if !ok {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if err := store.WriteJSON(filepath.Join(dir, CellsDir, cr.ID()+".json"), cr); err != nil {
					o.Error = "cell file not written: " + err.Error()
				}
				cells = append(cells, cr)
			}})
	if err != nil {
		return res, err
	}
	res.Campaign, res.Total, res.Interrupted, res.Elapsed = rep, rep.Planned, rep.Interrupted, rep.Elapsed
	for _, o := range rep.Outcomes {
		if o.Resumed {
			res.Skipped++
		} else if o.Error == "" {
			res.Ran++
		}
	}
	res.Cells = inGridOrder(spec, cells)
	return res, WriteOutputs(res)
}

// resume is the cell file of a run finished before, its metrics measured
// again from its run folder; false when the run must run.
func (s Spec) resume(name string, seed int64) (CellResult, bool) {
	c, ok := s.cellOf(name, seed)
	if !ok || s.Fresh {
		return CellResult{}, false
	}
	cr, ok := loadCell(filepath.Join(Dir(s.Store, s.Name), CellsDir, c.ID()+".json"))
	if !ok {
		return CellResult{}, false
	}
	cr.Cell = c
	refresh(s.Store, &cr)
	return cr, true
}

// cellResult is the cell file of a finished run.
func (s Spec) cellResult(o *campaign.Outcome, run *analysis.Result) (CellResult, bool) {
	c, ok := s.cellOf(o.Cell, o.Seed)
	if !ok {
		return CellResult{}, false
	}
	cr := CellResult{Cell: c, Metrics: MetricsOf(run), Elapsed: o.Elapsed, Finished: time.Now().UTC(), Dir: run.Dir}
	if rel, err := filepath.Rel(s.Store, run.Dir); err == nil {
		cr.Dir = filepath.ToSlash(rel)
	}
	if strings.HasPrefix(o.Error, "report not written") {
		cr.ReportError = o.Error
	}
	return cr, true
}

// outcomeOf is the campaign outcome of a resumed cell.
func outcomeOf(root string, cr CellResult) *campaign.Outcome {
	holds, seen := measured(cr.Metrics)
	return &campaign.Outcome{Dir: filepath.Join(root, filepath.FromSlash(cr.Dir)), Verdict: cr.Verdict, Elapsed: cr.Elapsed,
		Claims: []campaign.Judged{{Name: measuredClaim, Holds: holds, Seen: seen}}}
}

// inGridOrder sorts cells by their place in the grid.
func inGridOrder(spec Spec, cells []CellResult) []CellResult {
	index := map[string]int{}
	for i, c := range spec.Grid.Cells(spec.Runs) {
		index[c.ID()] = i
	}
	slices.SortFunc(cells, func(a, b CellResult) int { return index[a.ID()] - index[b.ID()] })
	return cells
}

// prepare creates the folder, checks a stored sweep's fixed settings
// against spec and, for a fresh sweep, removes the old cell files.
func prepare(dir string, spec Spec) error {
	cells := filepath.Join(dir, CellsDir)
	var old storedSpec
	if spec.Fresh {
		if err := os.RemoveAll(cells); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	} else if store.ReadJSON(filepath.Join(dir, SpecFile), &old) == nil {
		if d := spec.key().diff(old.Key); d != "" {
			if n, _ := os.ReadDir(cells); len(n) > 0 {
				return bad("--name %s already holds a sweep with other settings (%s): rerun with --fresh or another --name", spec.Name, d)
			}
		}
	}
	if err := os.MkdirAll(cells, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	st := storedSpec{Name: spec.Name, Key: spec.key(), Runs: spec.Runs}
	for _, d := range spec.Grid.TTLs {
		st.TTLs = append(st.TTLs, page.Dur(d))
	}
	for _, r := range spec.Grid.Renews {
		st.Renews = append(st.Renews, r.Spec)
	}
	for _, d := range spec.Grid.Pauses {
		st.Pauses = append(st.Pauses, page.Dur(d))
	}
	return store.WriteJSON(filepath.Join(dir, SpecFile), st)
}

// loadCell reads a finished cell's file; a missing or damaged file means
// the cell must run.
func loadCell(path string) (CellResult, bool) {
	var cr CellResult
	if err := store.ReadJSON(path, &cr); err != nil || cr.Finished.IsZero() {
		return CellResult{}, false
	}
	return cr, true
}

// refresh recomputes a resumed cell's metrics from its run folder
// (history and results.json), so cells finished by an older lockstorm are
// measured like new ones. A run folder that cannot be read keeps the
// stored metrics.
func refresh(root string, cr *CellResult) {
	if cr.Dir == "" {
		return
	}
	dir := filepath.Join(root, filepath.FromSlash(cr.Dir))
	var verdict checker.Result
	if store.ReadJSON(filepath.Join(dir, store.ResultsFile), &verdict) != nil {
		return
	}
	run, _, err := analysis.Load(dir)
	if err != nil {
		return
	}
	run.Verdict = verdict
	cr.Metrics = MetricsOf(run)
}

// WriteOutputs computes res.Recommendation and writes the table
// (Markdown and CSV), the heat maps and index.html of the finished cells
// into res.Dir.
func WriteOutputs(res *Result) error {
	var errs []error
	put := func(name string, b []byte, err error) {
		if err == nil {
			err = store.WriteFile(filepath.Join(res.Dir, name), b)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep: %s: %w", name, err))
		}
	}
	put(TableMDFile, []byte(Markdown(res.Cells)), nil)
	csv, err := CSV(res.Cells)
	put(TableCSVFile, csv, err)
	agg := Aggregate(res.Spec.Grid, res.Cells)
	res.Recommendation = Recommend(res.Spec.Grid, res.Spec.Runs, agg)
	vio, err := HeatMap(agg, res.Spec.Grid, ViolationsMap)
	put(ViolationsFile, vio, err)
	av, err := HeatMap(agg, res.Spec.Grid, AvailabilityMap)
	put(AvailabilityFile, av, err)
	page, err := indexPage(res, vio, av)
	put(IndexFile, page, err)
	return errors.Join(errs...)
}
