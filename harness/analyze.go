package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// Files of a run folder.
const (
	HistoryFile = "history.jsonl"
	TestFile    = "test.json"
	WritesFile  = "writes.jsonl"
	FinalFile   = "final.json" // the resource's counter values after the run
	ResultsFile = "results.json"
	LogFile     = "lockstorm.log"
)

// Load reads a stored run: its configuration, plan, history (a truncated
// last line from a crashed run is tolerated; the warnings say so), the
// resource's write log and final values when present. A run that did not
// complete (no completion mark in test.json, fewer records than it wrote,
// cut short, or a fault plan without its final heal record) gets
// Result.Incomplete, so its check is at best unknown. Load does not
// check; Analyze checks what was recorded.
func Load(dir string) (*Result, []history.Warning, error) {
	var tf testFile
	b, err := os.ReadFile(filepath.Join(dir, TestFile))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s is not a run folder: %v", ErrConfig, dir, err)
	}
	if err := json.Unmarshal(b, &tf); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrConfig, filepath.Join(dir, TestFile), err)
	}
	h, warns, err := history.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		return nil, warns, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	res := &Result{Dir: dir, Config: tf.Config, Plan: tf.Plan, History: h, Incomplete: storedIncomplete(tf, h)}
	res.Writes, err = readWrites(filepath.Join(dir, WritesFile))
	if err != nil {
		return nil, warns, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, FinalFile)); err == nil {
		if err := json.Unmarshal(b, &res.Final); err != nil {
			return nil, warns, fmt.Errorf("%w: %s: %v", ErrConfig, FinalFile, err)
		}
	}
	return res, warns, nil
}

// Analyze re-checks a stored run and rewrites its results.json.
func Analyze(ctx context.Context, dir string) (*Result, []history.Warning, error) {
	res, warns, err := Load(dir)
	if err != nil {
		return nil, warns, err
	}
	return res, warns, Check(ctx, res)
}

func readWrites(path string) ([]resource.Write, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // a run that crashed before writing it
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []resource.Write
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		var w resource.Write
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			return nil, fmt.Errorf("%w: %s line %d: %v", ErrConfig, path, line, err)
		}
		out = append(out, w)
	}
	return out, sc.Err()
}
