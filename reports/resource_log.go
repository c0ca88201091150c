package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// resourceLog is the run's resource log, the resource's own account of
// every write and fenced read it handled, in its order: the result's
// Writes when it holds them, else writes.jsonl in the run folder, read
// entry by entry. n is its number of entries (0: the run has none).
type resourceLog struct {
	mem  []resource.Write
	path string
	n    int
}

// runLog finds res's resource log.
func runLog(res *analysis.Result) (resourceLog, error) {
	if len(res.Writes) > 0 {
		return resourceLog{mem: res.Writes, n: len(res.Writes)}, nil
	}
	if res.Dir == "" {
		return resourceLog{}, nil
	}
	path := filepath.Join(res.Dir, store.WritesFile)
	n, err := history.CountLines(path)
	if errors.Is(err, os.ErrNotExist) {
		return resourceLog{}, nil
	}
	if err != nil {
		return resourceLog{}, fmt.Errorf("reports: %w", err)
	}
	return resourceLog{path: path, n: n}, nil
}

// each calls f on every entry in order.
func (l resourceLog) each(f func(w *resource.Write)) error {
	for i := range l.mem {
		f(&l.mem[i])
	}
	if l.path == "" {
		return nil
	}
	if err := resource.EachLogged(l.path, f); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// readLog reads the resource log once for the report: the entries of the
// window history (every one for a whole history, else those handled
// during a window read, at most maxWindowRecords per window), for the
// holders chart's marks and the pause stories; and fencing.png's points
// (logFences, into s.fenceLog).
func (s *runScan) readLog(l resourceLog) (entries []resource.Write, err error) {
	f := newLogFences(l.n)
	s.fenceLog = f
	n := make([]int, len(s.read))
	err = l.each(func(w *resource.Write) {
		f.add(w)
		switch {
		case s.whole:
			entries = append(entries, *w)
		default:
			for i, r := range s.read {
				if w.Time >= r.from && w.Time <= r.to && n[i] < maxWindowRecords {
					n[i]++
					entries = append(entries, *w)
					break
				}
			}
		}
	})
	return entries, err
}
