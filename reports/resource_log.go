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

// resourceLog is the run's resource log (Result.EachWrite), the
// resource's own account of every write and fenced read it handled; n is
// its number of entries (0: none).
type resourceLog struct {
	res *analysis.Result
	n   int
}

// runLog finds res's resource log.
func runLog(res *analysis.Result) (resourceLog, error) {
	if len(res.Writes) > 0 || res.Dir == "" {
		return resourceLog{res, len(res.Writes)}, nil
	}
	n, err := history.CountLines(filepath.Join(res.Dir, store.WritesFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return resourceLog{}, fmt.Errorf("reports: %w", err)
	}
	return resourceLog{res, n}, nil
}

// each calls f on every entry in order.
func (l resourceLog) each(f func(w *resource.Write)) error {
	if l.n == 0 {
		return nil
	}
	if err := l.res.EachWrite(f); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// readLog reads the resource log once: the entries of the kept history
// (those within an anomaly span's read, at most maxSpanRecords each, for
// a history not kept whole), and fencing.png's points into s.fenceLog.
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
				if w.Time >= r.from && w.Time <= r.to && n[i] < maxSpanRecords {
					n[i]++
					entries = append(entries, *w)
					break
				}
			}
		}
	})
	return entries, err
}
