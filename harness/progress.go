package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// Progress is a snapshot of a run in progress, for a progress bar or log.
type Progress struct {
	Elapsed   time.Duration
	TimeLimit time.Duration
	// Ops is the number of history records so far.
	Ops int
	// Faults are the faults active now, e.g. "partition", "client-pause".
	Faults []string
	// Violations counts the violations found online so far (see
	// LiveOverlap and the other Live kinds): two holders by the clients'
	// own view, accepted writes after validity, lost updates, stale
	// writes the resource accepted, overlapping API calls. Every one
	// counted is one the checkers report too; ViolationKinds breaks the
	// total down by kind (nil when 0).
	Violations     int
	ViolationKinds map[string]int
	// Done is true for the last snapshot.
	Done bool
}

// String is a one-line summary for plain logs.
func (p Progress) String() string {
	faults := "none"
	if len(p.Faults) > 0 {
		faults = fmt.Sprint(p.Faults)
	}
	return fmt.Sprintf("%5.1fs/%v  ops %d  faults %s  violations so far %d%s",
		p.Elapsed.Seconds(), p.TimeLimit, p.Ops, faults, p.Violations, p.KindsText())
}

// KindsText is " (lost-update 2, overlap 1)": the violations by kind,
// sorted by name; empty when there are none.
func (p Progress) KindsText() string {
	if len(p.ViolationKinds) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(p.ViolationKinds))
	for k := range p.ViolationKinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		kinds[i] = fmt.Sprintf("%s %d", k, p.ViolationKinds[k])
	}
	return " (" + strings.Join(kinds, ", ") + ")"
}

// progressInterval is how often OnProgress is called.
const progressInterval = 500 * time.Millisecond

// tracker follows the history incrementally for progress snapshots.
type tracker struct {
	seen   int
	active map[string]int // fault -> starts not yet stopped
	live   *liveCounter
}

func (t *tracker) snapshot(r *run, start time.Time) Progress {
	if t.active == nil {
		t.active = map[string]int{}
		t.live = newLiveCounter(r.cfg)
	}
	ops := r.rec.Since(t.seen)
	for _, op := range ops {
		t.live.add(op)
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
	p := Progress{Elapsed: time.Since(start), TimeLimit: r.cfg.TimeLimit, Ops: t.seen}
	for f := range t.active {
		p.Faults = append(p.Faults, f)
	}
	sort.Strings(p.Faults)
	t.live.addLogged(r.res.WritesSince(t.live.writes))
	p.Violations, p.ViolationKinds = t.live.total(), t.live.snapshot()
	return p
}

// runLog writes lockstorm.log in the run folder and, optionally, a copy
// to another writer.
//
// Each line is "<wall clock, UTC, RFC 3339> <history time> <message>".
// The history time is on the history's clock: seconds since the
// history's zero (history.Recorder.Start), the clock of every op's time
// in history.jsonl and in the report, so that a fault at 1.202 s in the
// history is logged at 1.202 s. Lines written before the history exists
// (setup: starting nodes and the resource) have no history time yet and
// carry "setup" in its place. Nemesis records are logged with their own
// record's time, which may be earlier than the line before them (they are
// logged at the next progress tick, up to progressInterval later).
type runLog struct {
	mu    sync.Mutex
	f     *os.File
	extra io.Writer
	// zero is the history's zero (monotonic), unset during setup.
	zero time.Time
}

func openLog(dir string, extra io.Writer) (*runLog, error) {
	f, err := os.Create(filepath.Join(dir, store.LogFile))
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	return &runLog{f: f, extra: extra}, nil
}

// setZero sets the history's zero: from now on lines carry the history's
// time instead of "setup".
func (l *runLog) setZero(t time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.zero = t
}

// logf logs a line stamped now.
func (l *runLog) logf(format string, args ...any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.write(time.Now(), format, args)
}

// logAt logs a line stamped with history time t (ns since the history's
// zero), e.g. a record's Time; before the zero is set, it is logf.
func (l *runLog) logAt(t int64, format string, args ...any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	at := time.Now()
	if !l.zero.IsZero() {
		at = l.zero.Add(time.Duration(t))
	}
	l.write(at, format, args)
}

// logStamp is the history-time column of a line logged at instant at:
// "%8.3fs" seconds since zero, or "setup" (right-aligned to the same
// width) while zero is unset.
func logStamp(at, zero time.Time) string {
	if zero.IsZero() {
		return fmt.Sprintf("%9s", "setup")
	}
	return fmt.Sprintf("%8.3fs", at.Sub(zero).Seconds())
}

// write writes one line stamped at instant at; l.mu is held.
func (l *runLog) write(at time.Time, format string, args []any) {
	line := at.UTC().Format(time.RFC3339) + " " + logStamp(at, l.zero) + " " + fmt.Sprintf(format, args...) + "\n"
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
