package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/config"
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

// EachWrite calls f with every entry of the resource's log (its writes,
// fenced reads and api entries) in order: res.Writes, or, when the result
// does not hold them, the run folder's writes.jsonl read one entry at a
// time (none without the file). The entry is valid during the call only.
func (res *Result) EachWrite(f func(w *resource.Write)) error {
	if len(res.Writes) > 0 || res.Dir == "" {
		for i := range res.Writes {
			f(&res.Writes[i])
		}
		return nil
	}
	err := resource.EachLogged(filepath.Join(res.Dir, store.WritesFile), f)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return nil
}
