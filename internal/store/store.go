// Package store owns lockstorm's store folder on disk (the names of a run
// folder's files, the JSON helpers of their writers) and its layout:
//
//	<root>/<test>/<started>/       one run (started: RunDirLayout, local time)
//	<root>/<test>/latest           link to the newest run that got past setup
//	<root>/sweeps/<name>/          a sweep (package sweep)
//	<root>/compare/<timestamp>/    a fencing comparison (package compare)
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Files the harness writes into a run folder.
const (
	// TestFile is the full configuration, fault plan and versions,
	// rewritten at the end of the run with how it ended.
	TestFile = "test.json"
	// HistoryFile is every record of the run, one JSON object a line.
	HistoryFile = "history.jsonl"
	// ResultsFile is the checkers' verdict and details.
	ResultsFile = "results.json"
	// WritesFile is the resource's log of every write it received.
	WritesFile = "writes.jsonl"
	// FinalFile is the resource's counter values after the run.
	FinalFile = "final.json"
	// LogFile is the run's log.
	LogFile = "lockstorm.log"
	// SetupFailedFile holds the error of a run whose setup failed: its
	// folder has no history, and "latest" never points at it.
	SetupFailedFile = "setup-failed.txt"
)

// Files the report (package reports) writes into a run folder.
const (
	IndexFile            = "index.html"
	JUnitFile            = "junit.xml"
	PorcupineFile        = "porcupine.html"
	PorcupineCounterFile = "porcupine-counter.html" // counter workload only
	TimelineFile         = "timeline.html"
	LatencyRawFile       = "latency-raw.png"
	LatencyQuantileFile  = "latency-quantiles.png"
	RateFile             = "rate.png"
	HoldersFile          = "holders.png"
	FencingFile          = "fencing.png"
)

// File is one file of a run folder and what it holds.
type File struct {
	Name, About string
}

// Files lists the files of a run folder worth linking from its report, in
// the order the report lists them.
var Files = []File{
	{HistoryFile, "every record of the run, one JSON object per line (Jepsen ops)"},
	{TestFile, "full configuration, seed, fault plan and versions"},
	{ResultsFile, "the checkers' verdicts and details"},
	{JUnitFile, "one test case per checker, for CI"},
	{TimelineFile, "every operation as a box on its client's row, on a shared time axis, coloured by outcome, with the fault windows"},
	{PorcupineFile, "porcupine's visualisation of the lock check, fault windows annotated"},
	{PorcupineCounterFile, "porcupine's visualisation of the counter's critical sections"},
	{WritesFile, "the resource's log of every write it received, with its fencing token"},
	{FinalFile, "the resource's values after the run"},
	{LogFile, "the run's log"},
	{HoldersFile, "holders plot"}, {LatencyRawFile, "raw latency plot"}, {LatencyQuantileFile, "latency quantiles plot"},
	{RateFile, "throughput plot"}, {FencingFile, "fencing tokens plot"},
}

// Folders of the store root besides the tests' folders.
const (
	// SweepsFolder holds one folder per sweep name.
	SweepsFolder = "sweeps"
	// CompareFolder holds one folder per comparison.
	CompareFolder = "compare"
	// LatestLink is the link in a test's folder to its newest run.
	LatestLink = "latest"
)

// RunDirLayout is the time layout of run folder names (local time, to
// the millisecond).
const RunDirLayout = "20060102T150405.000"

// Path is the path of file name in folder dir.
func Path(dir, name string) string { return filepath.Join(dir, name) }

// Exists reports whether dir holds a file (or folder) name.
func Exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// SweepDir is the folder of the sweep named name in store root.
func SweepDir(root, name string) string { return filepath.Join(root, SweepsFolder, name) }

// NewRunDir creates a new run folder of test under root and returns its
// path: root/test/<now in RunDirLayout>. It never reuses an existing
// folder: two runs started in the same millisecond take the next
// millisecond's name.
func NewRunDir(root, test string) (string, error) {
	base := filepath.Join(root, test)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("harness: store: %w", err)
	}
	for {
		dir := filepath.Join(base, time.Now().Format(RunDirLayout))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("harness: store: %w", err)
		}
		time.Sleep(time.Millisecond)
	}
}

// NewDir creates base/name, or base/name-2, -3... if it exists, and
// returns its path (the folders of comparisons).
func NewDir(base, name string) (string, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	for i := 1; ; i++ {
		dir := filepath.Join(base, name)
		if i > 1 {
			dir += fmt.Sprintf("-%d", i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", fmt.Errorf("store: %w", err)
		}
	}
}

// LinkLatest points the test's "latest" link at run folder dir (best
// effort). Only a run that got past setup becomes latest.
func LinkLatest(dir string) {
	latest := filepath.Join(filepath.Dir(dir), LatestLink)
	_ = os.Remove(latest)
	_ = os.Symlink(filepath.Base(dir), latest)
}

// MarkSetupFailed writes SetupFailedFile with err into run folder dir
// (best effort: the disk may be what failed).
func MarkSetupFailed(dir string, err error) {
	_ = os.WriteFile(filepath.Join(dir, SetupFailedFile), []byte(err.Error()+"\n"), 0o644)
}

// RunDir is one run folder found in a store.
type RunDir struct {
	// Test is the test name; Dir the run folder relative to the root.
	Test, Dir string
	// Started is when the run started (from its folder name).
	Started time.Time
}

// RunDirs lists the run folders of store root, newest first. Folders
// whose name is not a run folder name ("latest", sweeps, comparisons,
// strays) are left out.
func RunDirs(root string) ([]RunDir, error) {
	tests, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []RunDir
	for _, t := range tests {
		if !t.IsDir() {
			continue
		}
		runs, err := os.ReadDir(filepath.Join(root, t.Name()))
		if err != nil {
			continue
		}
		for _, r := range runs {
			started, err := time.ParseInLocation(RunDirLayout, r.Name(), time.Local)
			if err != nil || !r.IsDir() {
				continue
			}
			out = append(out, RunDir{Test: t.Name(), Dir: filepath.Join(t.Name(), r.Name()), Started: started})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}
