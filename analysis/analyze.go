package analysis

import (
	"cmp"
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

// Load reads a stored run without checking it: its configuration, plan
// and final values, and its history as a file to read streamed (only its
// records counted and its nemesis records decoded; a truncated last line
// is a warning). A run that did not complete gets Result.Incomplete.
func Load(dir string) (*Result, []history.Warning, error) {
	var tf TestFile
	b, err := os.ReadFile(filepath.Join(dir, store.TestFile))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s is not a run folder: %v", config.ErrConfig, dir, err)
	}
	if err := json.Unmarshal(b, &tf); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", config.ErrConfig, filepath.Join(dir, store.TestFile), err)
	}
	path := filepath.Join(dir, store.HistoryFile)
	sum, err := history.SummarizeFile(path)
	if err != nil {
		return nil, sum.Warnings, fmt.Errorf("%w: history: %v", config.ErrConfig, err)
	}
	res := &Result{Dir: dir, Config: tf.Config, Plan: tf.Plan, Records: sum.Records, History: history.File(path),
		Incomplete: storedIncomplete(tf, sum.Records, sum.Nemesis), ClockEvents: tf.ClockEvents}
	if b, err := os.ReadFile(filepath.Join(dir, store.FinalFile)); err == nil {
		if err := json.Unmarshal(b, &res.Final); err != nil {
			return nil, sum.Warnings, fmt.Errorf("%w: %s: %v", config.ErrConfig, store.FinalFile, err)
		}
	}
	return res, sum.Warnings, nil
}

// Analyze re-checks a stored run and rewrites its results.json, under a
// soft memory limit (limitMemory) left in place for the report after it.
func Analyze(ctx context.Context, dir string) (*Result, []history.Warning, error) {
	return AnalyzeWith(ctx, dir, nil)
}

// AnalyzeWith is Analyze with another pass riding on the check's read:
// ride, when not nil, is given the loaded run and returns the pass.
func AnalyzeWith(ctx context.Context, dir string, ride func(res *Result) Rider) (*Result, []history.Warning, error) {
	res, warns, err := Load(dir)
	if err != nil {
		return nil, warns, err
	}
	var rider Rider
	per := int64(checkBytesPerRecord)
	if ride != nil {
		rider, per = ride(res), per+rideBytesPerRecord
	}
	limitMemory(res.Records, per) // not restored: Check's own limit is then this one
	return res, warns, checkAlso(ctx, res, rider)
}

// LoadChecked is Load with the verdict, coverage and interruption read
// back from results.json.
func LoadChecked(dir string) (*Result, error) {
	res, _, err := Load(dir)
	if err != nil {
		return nil, err
	}
	v, extra, err := readResults(dir)
	if err != nil {
		return nil, err
	}
	res.Verdict, res.Coverage, res.Interrupted = v, extra.Coverage, extra.Interrupted
	res.Incomplete = cmp.Or(extra.Incomplete, res.Incomplete)
	return res, nil
}

// storedResults is what results.json holds besides the verdict.
type storedResults struct {
	Interrupted bool             `json:"interrupted"`
	Incomplete  string           `json:"incomplete"`
	Coverage    *coverage.Report `json:"coverage"`
}

// readResults reads run folder dir's results.json.
func readResults(dir string) (checker.Result, storedResults, error) {
	var v checker.Result
	var extra storedResults
	path := filepath.Join(dir, store.ResultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return v, extra, fmt.Errorf("%w: %s has no verdict: %v", config.ErrConfig, dir, err)
	}
	if err := cmp.Or(json.Unmarshal(b, &v), json.Unmarshal(b, &extra)); err != nil {
		return v, extra, fmt.Errorf("%w: %s: %v", config.ErrConfig, path, err)
	}
	return v, extra, nil
}
