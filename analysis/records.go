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

// EachRecord calls f with every record of the run's history in order.
func (res *Result) EachRecord(f func(op *history.Op)) error {
	return history.Each(res.History, func(o *history.Op) bool { f(o); return true })
}

// EachWrite calls f with every entry of the resource's log in order:
// res.Writes, else the run folder's writes.jsonl read streamed (none
// without the file). The entry is valid during the call only.
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
