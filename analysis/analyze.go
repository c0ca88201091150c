package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// Load reads a stored run: its configuration, plan, history (a truncated
// last line from a crashed run is tolerated; the warnings say so), the
// resource's write log and final values when present. A run that did not
// complete (no completion mark in test.json, fewer records than it wrote,
// cut short, or a fault plan without its final heal record) gets
// Result.Incomplete, so its check is at best unknown. Load does not
// check; Analyze checks what was recorded.
//
// The history is not loaded, whatever its size: Load counts its records
// and decodes only its nemesis records (scanNemesis), and sets
// Result.History to the file, for Check, the coverage and the report to
// read it streamed (one engine for every size); Writes stays nil
// (EachWrite and the check read writes.jsonl).
func Load(dir string) (*Result, []history.Warning, error) {
	var tf TestFile
	b, err := os.ReadFile(filepath.Join(dir, store.TestFile))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s is not a run folder: %v", config.ErrConfig, dir, err)
	}
	if err := json.Unmarshal(b, &tf); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", config.ErrConfig, filepath.Join(dir, store.TestFile), err)
	}
	res, warns, err := loadFile(dir, filepath.Join(dir, store.HistoryFile), tf)
	if err != nil {
		return nil, warns, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, store.FinalFile)); err == nil {
		if err := json.Unmarshal(b, &res.Final); err != nil {
			return nil, warns, fmt.Errorf("%w: %s: %v", config.ErrConfig, store.FinalFile, err)
		}
	}
	return res, warns, nil
}

// loadFile is Load of the history at path: its length and nemesis
// records (enough for storedIncomplete), the history itself left in the
// file.
func loadFile(dir, path string, tf TestFile) (*Result, []history.Warning, error) {
	n, nem, warns, err := scanNemesis(path)
	if err != nil {
		return nil, warns, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return &Result{Dir: dir, Config: tf.Config, Plan: tf.Plan, Records: n, History: history.File(path),
		Incomplete: storedIncomplete(tf, n, nem), ClockEvents: tf.ClockEvents}, warns, nil
}

// Analyze re-checks a stored run and rewrites its results.json. Its
// history is read streamed, under a soft memory limit (see limitMemory)
// that Analyze leaves in place for what follows it in the process (the
// report: `lockstorm analyze` ends there); a limit set before
// (GOMEMLIMIT) is kept.
func Analyze(ctx context.Context, dir string) (*Result, []history.Warning, error) {
	return AnalyzeWith(ctx, dir, nil)
}

// AnalyzeWith is Analyze with another pass over the history riding on the
// check's read (the report's, see reports.NewPass): ride, when not nil,
// is given the loaded run before the check and returns the function to
// hand every record the check reads (see checker.Composite.Also).
func AnalyzeWith(ctx context.Context, dir string, ride func(res *Result) func(o *history.Op, at history.Pos)) (*Result, []history.Warning, error) {
	res, warns, err := Load(dir)
	if err != nil {
		return nil, warns, err
	}
	limitMemory(res.Records) // not restored: Check's own limit is then this one
	var also func(o *history.Op, at history.Pos)
	if ride != nil {
		also = ride(res)
	}
	return res, warns, checkAlso(ctx, res, also)
}

// LoadChecked reads a checked run folder back as the Result its run
// returned: Load, then the verdict, coverage and interruption from
// results.json (without checking again).
func LoadChecked(dir string) (*Result, error) {
	res, _, err := Load(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, store.ResultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s has no verdict: %v", config.ErrConfig, dir, err)
	}
	var extra struct {
		Interrupted bool             `json:"interrupted"`
		Incomplete  string           `json:"incomplete"`
		Coverage    *coverage.Report `json:"coverage"`
	}
	var v checker.Result
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", config.ErrConfig, path, err)
	}
	if err := json.Unmarshal(b, &extra); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", config.ErrConfig, path, err)
	}
	res.Verdict, res.Coverage, res.Interrupted = v, extra.Coverage, extra.Interrupted
	if extra.Incomplete != "" {
		res.Incomplete = extra.Incomplete
	}
	return res, nil
}
