package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Progress is a snapshot of a run in progress, for a progress bar or log.
type Progress struct {
	Elapsed   time.Duration
	TimeLimit time.Duration
	// Ops is the number of history records so far.
	Ops int
	// Faults are the faults active now, e.g. "partition", "client-pause".
	Faults []string
	// Violations counts what the resource saw go wrong so far: stale
	// writes it accepted and API calls that overlapped another.
	Violations int
	// Done is true for the last snapshot.
	Done bool
}

// String is a one-line summary for plain logs.
func (p Progress) String() string {
	faults := "none"
	if len(p.Faults) > 0 {
		faults = fmt.Sprint(p.Faults)
	}
	return fmt.Sprintf("%5.1fs/%v  ops %d  faults %s  violations so far %d",
		p.Elapsed.Seconds(), p.TimeLimit, p.Ops, faults, p.Violations)
}

// progressInterval is how often OnProgress is called.
const progressInterval = 500 * time.Millisecond

// tracker follows the history incrementally for progress snapshots.
type tracker struct {
	seen   int
	active map[string]int // fault -> starts not yet stopped
}

func (t *tracker) snapshot(r *run, start time.Time) Progress {
	if t.active == nil {
		t.active = map[string]int{}
	}
	for _, op := range r.rec.Since(t.seen) {
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
	t.seen = r.rec.Len()
	p := Progress{Elapsed: time.Since(start), TimeLimit: r.cfg.TimeLimit, Ops: t.seen}
	for f := range t.active {
		p.Faults = append(p.Faults, f)
	}
	sort.Strings(p.Faults)
	for _, w := range r.res.Writes() {
		if (w.Stale && w.Accepted && !w.Read) || w.Callers > 1 {
			p.Violations++
		}
	}
	return p
}

// runLog writes lockstorm.log in the run folder and, optionally, a copy
// to another writer.
type runLog struct {
	mu    sync.Mutex
	f     *os.File
	extra io.Writer
	t0    time.Time
}

func openLog(dir string, extra io.Writer) (*runLog, error) {
	f, err := os.Create(filepath.Join(dir, LogFile))
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	return &runLog{f: f, extra: extra, t0: time.Now()}, nil
}

func (l *runLog) logf(format string, args ...any) {
	if l == nil {
		return
	}
	line := fmt.Sprintf("%s %8.3fs "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339), time.Since(l.t0).Seconds()}, args...)...)
	l.mu.Lock()
	defer l.mu.Unlock()
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
