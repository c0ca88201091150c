package harness

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// progressInterval is how often OnProgress is called.
const progressInterval = 500 * time.Millisecond

// tracker follows the history incrementally for progress snapshots.
type tracker struct {
	seen   int
	active map[string]int // fault -> starts not yet stopped
	live   *analysis.LiveCounter
}

func (t *tracker) snapshot(r *run, start time.Time) config.Progress {
	if t.active == nil {
		t.active = map[string]int{}
		t.live = analysis.NewLiveCounter(r.cfg)
	}
	ops := r.rec.Since(t.seen)
	for _, op := range ops {
		t.live.Add(op)
		if op.IsNemesis() && op.Type == history.Invoke {
			switch op.F {
			case history.FStart:
				t.active[op.Fault]++
			case history.FStop:
				if t.active[op.Fault]--; t.active[op.Fault] <= 0 {
					delete(t.active, op.Fault)
				}
			case history.FHeal:
				clear(t.active)
			}
		}
	}
	if len(ops) > 0 {
		t.seen = int(ops[len(ops)-1].Index) + 1
	}
	p := config.Progress{Elapsed: time.Since(start), TimeLimit: r.cfg.TimeLimit, Ops: t.seen, Faults: slices.Sorted(maps.Keys(t.active))}
	t.live.AddLogged(r.res.WritesSince(t.live.Writes()))
	p.Violations, p.ViolationKinds = t.live.Total(), t.live.Snapshot()
	return p
}

// runLog writes lockstorm.log (and a copy to extra): lines of "<wall
// clock, UTC, RFC 3339> <seconds on the history's clock, or setup before
// it starts> <message>".
type runLog struct {
	mu    sync.Mutex
	f     *os.File
	extra io.Writer
	zero  time.Time // the history's zero (monotonic), unset during setup
}

func openLog(dir string, extra io.Writer) (*runLog, error) {
	f, err := os.Create(filepath.Join(dir, store.LogFile))
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	return &runLog{f: f, extra: extra}, nil
}

// setZero sets the history's zero, ending "setup".
func (l *runLog) setZero(t time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.zero = t
}

// logf logs a line stamped now.
func (l *runLog) logf(format string, args ...any) { l.log(nil, format, args) }

// logAt logs a line stamped with history time t (a record's Time), or
// now before the zero is set.
func (l *runLog) logAt(t int64, format string, args ...any) { l.log(&t, format, args) }

// log writes one line stamped at history time *t, or now when t is nil.
func (l *runLog) log(t *int64, format string, args []any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	at, stamp := time.Now(), fmt.Sprintf("%9s", "setup")
	if !l.zero.IsZero() {
		if t != nil {
			at = l.zero.Add(time.Duration(*t))
		}
		stamp = fmt.Sprintf("%8.3fs", at.Sub(l.zero).Seconds())
	}
	line := at.UTC().Format(time.RFC3339) + " " + stamp + " " + fmt.Sprintf(format, args...) + "\n"
	_, _ = l.f.WriteString(line)
	if l.extra != nil {
		_, _ = io.WriteString(l.extra, line)
	}
}

func (l *runLog) close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
