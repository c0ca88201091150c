package analysis

import (
	"path/filepath"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// EachRecord calls f with every record of the run's history in order,
// read through res.History (a long run's history one record at a time
// from its file, so that a reader needs no memory for the whole history).
func (res *Result) EachRecord(f func(op *history.Op)) error {
	return history.Each(res.History, func(o *history.Op) bool { f(o); return true })
}

// AllWrites is the resource's log of writes and fenced reads: res.Writes,
// or, when it is not in memory, the run folder's writes.jsonl read back
// (for a short run's reader: serverLog reads it entry by entry).
func (res *Result) AllWrites() ([]resource.Write, error) {
	if res.Writes != nil || res.Dir == "" {
		return res.Writes, nil
	}
	return ReadWrites(filepath.Join(res.Dir, store.WritesFile))
}
