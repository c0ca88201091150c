package analysis

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// EachRecord calls f with every record of the run's history in order:
// from res.History, or, for a big history kept only on disk
// (res.HistoryFile), read one record at a time, so that a reader of a
// long run's records needs no memory for the whole history.
func (res *Result) EachRecord(f func(op *history.Op)) error {
	if res.HistoryFile == "" {
		for i := range res.History {
			f(&res.History[i])
		}
		return nil
	}
	file, err := os.Open(res.HistoryFile)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	defer file.Close()
	sc := history.NewScanner(file)
	for sc.Scan() {
		op := sc.Op()
		f(&op)
	}
	return sc.Err()
}

// AllWrites is the resource's log of writes and fenced reads: res.Writes,
// or, for a big history (whose result keeps neither in memory), the run
// folder's writes.jsonl read back.
func (res *Result) AllWrites() ([]resource.Write, error) {
	if res.HistoryFile == "" || len(res.Writes) > 0 || res.Dir == "" {
		return res.Writes, nil
	}
	return ReadWrites(filepath.Join(res.Dir, store.WritesFile))
}
