package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// spillWrites streams the resource's log to writes.jsonl, keeping the last
// liveWindow entries in memory, like the history.
func (r *run) spillWrites() error {
	f, err := os.Create(filepath.Join(r.dir, store.WritesFile))
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	r.res.Spill(f, liveWindow)
	return nil
}

// liveWindow is how many recent records a run keeps in memory for its
// live readers (progress, fault targeting), which read new records every
// progress tick (0.5 s). Older records are only in history.jsonl, so the
// run's memory stays flat however long it lasts. A run that recorded more
// reads its history back from the file for the check (reloadHistory).
var liveWindow = 1 << 16

// reloadHistory replaces res.History and res.Writes, of which the run kept
// only the last records in memory, with the whole history and resource log
// read back from history.jsonl and writes.jsonl, for a history that fits
// in memory (see analysis.Streamed; the others are checked streamed).
func (r *run) reloadHistory(res *analysis.Result) error {
	h, warns, err := history.ReadFile(filepath.Join(r.dir, store.HistoryFile))
	for _, w := range warns {
		r.logf("history: %v", w)
	}
	if err != nil {
		return err
	}
	if res.Writes, err = analysis.ReadWrites(filepath.Join(r.dir, store.WritesFile)); err != nil {
		return err
	}
	res.History = h
	r.logf("history of %d records and %d resource log entries read back from %s and %s for the check",
		len(h), len(res.Writes), store.HistoryFile, store.WritesFile)
	return nil
}

// streamHistory makes res a big history's result: History and Writes
// (the run's last records only) are dropped, HistoryFile names
// history.jsonl.
func (r *run) streamHistory(res *analysis.Result) {
	res.History, res.Writes = nil, nil
	res.HistoryFile = filepath.Join(r.dir, store.HistoryFile)
	r.logf("history of %d records: checked streamed from %s, not loaded (from %d records)", res.Records, store.HistoryFile, analysis.BigHistoryRecords)
}
