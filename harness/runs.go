package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
)

// RunInfo describes one stored run.
type RunInfo struct {
	// Test is the test name; Dir the run folder relative to the store.
	Test, Dir string
	// Started is when the run started (from its folder name).
	Started time.Time
	// Verdict is the overall validity; Checked is false when the run has
	// no results.json (crashed, or still running).
	Verdict checker.Validity
	Checked bool
	Config  Config
	// SetupError is the error of a run whose setup failed (its
	// SetupFailedFile): it never ran, has no history and no verdict.
	SetupError string
}

// runDirLayout is the time layout of run folder names.
const runDirLayout = "20060102T150405.000"

// ListRuns lists the runs of a store, newest first.
func ListRuns(store string) ([]RunInfo, error) {
	tests, err := os.ReadDir(store)
	if err != nil {
		return nil, err
	}
	var out []RunInfo
	for _, t := range tests {
		if !t.IsDir() {
			continue
		}
		runs, err := os.ReadDir(filepath.Join(store, t.Name()))
		if err != nil {
			continue
		}
		for _, r := range runs {
			started, err := time.ParseInLocation(runDirLayout, r.Name(), time.Local)
			if err != nil || !r.IsDir() {
				continue // "latest" and strays
			}
			ri := RunInfo{Test: t.Name(), Dir: filepath.Join(t.Name(), r.Name()), Started: started, Verdict: checker.Unknown}
			dir := filepath.Join(store, ri.Dir)
			var tf testFile
			if b, err := os.ReadFile(filepath.Join(dir, TestFile)); err == nil && json.Unmarshal(b, &tf) == nil {
				ri.Config = tf.Config
			}
			if b, err := os.ReadFile(filepath.Join(dir, SetupFailedFile)); err == nil {
				ri.SetupError = strings.TrimSpace(string(b))
				out = append(out, ri)
				continue
			}
			var res checker.Result
			if b, err := os.ReadFile(filepath.Join(dir, ResultsFile)); err == nil && json.Unmarshal(b, &res) == nil {
				ri.Verdict, ri.Checked = res.Valid, true
			}
			out = append(out, ri)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}
