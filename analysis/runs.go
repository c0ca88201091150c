package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/store"
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
	Config  config.Config
	// SetupError is the error of a run whose setup failed: it never ran.
	SetupError string
	// Unknown says why an unknown verdict is unknown (below); Error is
	// the verdict's explanation.
	Unknown string
	Error   string
}

// Why an unknown verdict is unknown (RunInfo.Unknown), in the order they
// are told apart.
const (
	UnknownInterrupted = "interrupted"
	UnknownIncomplete  = "incomplete"
	UnknownCoverage    = "coverage shortfall"
	UnknownOther       = "undecided"
)

// unknownWhy is RunInfo.Unknown of results.json r.
func unknownWhy(r storedResults) string {
	switch {
	case r.Interrupted:
		return UnknownInterrupted
	case r.Incomplete != "":
		return UnknownIncomplete
	case r.Coverage != nil && len(r.Coverage.Gaps) > 0:
		return UnknownCoverage
	}
	return UnknownOther
}

// ListRuns lists the runs of a store, newest first.
func ListRuns(root string) ([]RunInfo, error) {
	dirs, err := store.RunDirs(root)
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, 0, len(dirs))
	for _, d := range dirs {
		ri := RunInfo{Test: d.Test, Dir: d.Dir, Started: d.Started, Verdict: checker.Unknown}
		dir := filepath.Join(root, ri.Dir)
		var tf TestFile
		if store.ReadJSON(filepath.Join(dir, store.TestFile), &tf) == nil {
			ri.Config = tf.Config
		}
		if b, err := os.ReadFile(filepath.Join(dir, store.SetupFailedFile)); err == nil {
			ri.SetupError = strings.TrimSpace(string(b))
		} else if res, extra, err := readResults(dir); err == nil {
			ri.Verdict, ri.Checked, ri.Error = res.Valid, true, res.Error
			if res.Valid == checker.Unknown {
				ri.Unknown = unknownWhy(extra)
			}
		}
		out = append(out, ri)
	}
	return out, nil
}
