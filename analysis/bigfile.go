package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// scanNemesis counts the records of the history at path and decodes
// only its nemesis records (history.SummarizeFile), so that a history
// of millions of records is scanned in seconds; a damaged record is left
// for the check, which reads every record and fails on it.
func scanNemesis(path string) (n int, nem history.History, warns []history.Warning, err error) {
	s, err := history.SummarizeFile(path)
	if err != nil {
		return 0, nil, s.Warnings, fmt.Errorf("history: %w", err)
	}
	return s.Records, s.Nemesis, s.Warnings, nil
}

// serverLog is the fencing checker's server log: the resource's writes
// and fenced reads (not its api entries), from res.Writes, or read from
// the run folder's writes.jsonl entry by entry when they are not in
// memory (see Result.Writes). It is digested as it is read (see
// checker.ServerLog): the log itself (a million entries at 10M records)
// is never held.
func serverLog(res *Result) (*checker.ServerLog, error) {
	log := &checker.ServerLog{}
	add := func(w *resource.Write) { addLogged(log, w) }
	if res.Writes != nil || res.Dir == "" {
		for i := range res.Writes {
			add(&res.Writes[i])
		}
		return log, nil
	}
	err := resource.EachLogged(filepath.Join(res.Dir, store.WritesFile), add)
	if errors.Is(err, os.ErrNotExist) {
		return &checker.ServerLog{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return log, nil
}

// addLogged adds the resource's log entry w to the server log, unless it
// is an api entry (the fencing checker reads writes and fenced reads).
func addLogged(log *checker.ServerLog, w *resource.Write) {
	if !w.Enter {
		log.Add(&checker.ServerWrite{Key: w.Key, Value: w.Value, Fence: w.Fence, Accepted: w.Accepted, Read: w.Read, Time: w.Time})
	}
}
