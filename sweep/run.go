package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
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
	// Progress, when set, is told when a cell starts, while it runs and
	// when it ends.
	Progress func(Event)
	// Shard, when set, runs only the shard's share of the (cell, run)
	// pairs (item i of Grid.Cells when i mod N is K) and writes a shard
	// manifest for `lockstorm merge` (shard.go).
	Shard shard.Shard
}

// Event is a progress report of a sweep.
type Event struct {
	// Index is the cell's position (0-based) among Total cells.
	Index, Total int
	Cell         Cell
	// Run is the cell's run in progress (zero before it starts).
	Run config.Progress
	// Done is set once the cell finished (Result set) or was skipped.
	Done    bool
	Skipped bool
	Result  *CellResult
	// Elapsed is the time since the sweep started.
	Elapsed time.Duration
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
	// Total is the number of cells of the grid.
	Total int
	// Interrupted is set when ctx ended before every cell ran.
	Interrupted bool
	// Started is when this invocation started (the JUnit suite's
	// timestamp); Elapsed how long it took.
	Started time.Time
	Elapsed time.Duration
	// Recommendation is computed from the finished cells by
	// WriteOutputs (Recommend).
	Recommendation Recommendation
	// Shard is the share of the grid this result holds (zero: all);
	// Manifest the path of its shard manifest.
	Shard    shard.Shard
	Manifest string
}

// Complete reports whether every cell of the grid finished.
func (r *Result) Complete() bool { return len(r.Cells) == r.Total }

// ErrRun wraps a cell whose run failed to set up or crashed (not a
// verdict: a run that found violations is a finished cell).
var ErrRun = errors.New("sweep: run failed")

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

// Run runs every cell of spec one after another, skipping cells whose file
// exists (unless spec.Fresh), then writes the table, heat maps and
// index.html. When ctx ends it stops after the current run has healed
// (that cell is not kept) and still writes the outputs of the finished
// cells. Errors: ErrSpec when the folder holds a sweep with other fixed
// settings; ErrRun when a run could not be carried out.
func Run(ctx context.Context, spec Spec, opt Options) (*Result, error) {
	start := time.Now()
	if opt.Runner == nil {
		opt.Runner = lockstorm.Run
	}
	dir := Dir(spec.Store, spec.Name)
	res := &Result{Spec: spec, Dir: dir, Started: start, Shard: opt.Shard}
	if err := prepare(dir, spec); err != nil {
		return res, err
	}
	all := spec.Grid.Cells(spec.Runs)
	var cells []Cell
	for i, c := range all {
		if opt.Shard.Owns(i) {
			cells = append(cells, c)
		}
	}
	res.Total = len(cells)
	var runErr error
	for i, c := range cells {
		ev := Event{Index: i, Total: len(cells), Cell: c}
		emit := func(e Event) {
			if opt.Progress != nil {
				e.Elapsed = time.Since(start)
				opt.Progress(e)
			}
		}
		path := filepath.Join(dir, CellsDir, c.ID()+".json")
		if cr, ok := loadCell(path); ok {
			cr.Cell = c
			refresh(spec.Store, &cr)
			res.Cells = append(res.Cells, cr)
			res.Skipped++
			ev.Done, ev.Skipped, ev.Result = true, true, &cr
			emit(ev)
			continue
		}
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		emit(ev)
		cr, interrupted, err := runCell(ctx, spec, c, opt, func(p config.Progress) { e := ev; e.Run = p; emit(e) })
		if interrupted {
			res.Interrupted = true
			break
		}
		if err != nil {
			runErr = fmt.Errorf("%w: %s: %w", ErrRun, runLabel(c), err)
			break
		}
		if err := store.WriteJSON(path, cr); err != nil {
			runErr = err
			break
		}
		res.Cells = append(res.Cells, cr)
		res.Ran++
		ev.Done, ev.Result = true, &cr
		emit(ev)
	}
	res.Elapsed = time.Since(start)
	werr := WriteOutputs(res)
	if opt.Shard.Set() {
		werr = errors.Join(werr, writeManifest(res))
	}
	return res, errors.Join(runErr, werr)
}

// runCell runs one cell and writes its report.
func runCell(ctx context.Context, spec Spec, c Cell, opt Options, progress func(config.Progress)) (CellResult, bool, error) {
	cfg := spec.Config(c)
	cfg.OnProgress = progress
	t0 := time.Now()
	run, err := opt.Runner(ctx, cfg)
	if run != nil && run.Interrupted {
		return CellResult{}, true, nil
	}
	err, reportErr := reports.SplitError(err)
	if err != nil {
		return CellResult{}, ctx.Err() != nil, err
	}
	cr := CellResult{Cell: c, Metrics: MetricsOf(run), Elapsed: time.Since(t0), Finished: time.Now().UTC()}
	if rel, err := filepath.Rel(spec.Store, run.Dir); err == nil {
		cr.Dir = filepath.ToSlash(rel)
	} else {
		cr.Dir = run.Dir
	}
	if reportErr != nil {
		cr.ReportError = reportErr.Error()
	}
	return cr, false, nil
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
