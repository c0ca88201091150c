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
// run's memory stays flat however long it lasts. The check and the report
// of a run that recorded more read its history from the file, streamed
// (keepHistory).
var liveWindow = 1 << 16

// keepHistory hands the run's history and resource log to res: the
// records in memory for a run within its live window, else history.jsonl
// (read streamed by the check and the report, never loaded whole); the
// resource's entries when it kept them all, else writes.jsonl (Writes
// nil).
func (r *run) keepHistory(res *analysis.Result) {
	if r.rec.Whole() && r.rec.Len() <= liveWindow {
		res.History = history.Slice(r.rec.History())
	} else {
		res.History = history.File(filepath.Join(r.dir, store.HistoryFile))
		r.logf("history of %d records (more than the %d kept in memory): read streamed from %s", r.rec.Len(), liveWindow, store.HistoryFile)
	}
	if ws := r.res.Writes(); r.res.Whole() { // whole then, whole before
		res.Writes = ws
	}
}
