package reports

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/lockstorm/lockstorm/config"
)

// Progress renders harness progress snapshots: a bar redrawn in place on
// a terminal, else (or under CI) a plain line every few seconds and when
// the active faults change.
type Progress struct {
	w      io.Writer
	tty    bool
	mu     sync.Mutex
	calls  int
	faults string // the active faults of the last snapshot
}

// NewProgress returns a renderer writing to w (normally os.Stderr).
func NewProgress(w io.Writer) *Progress {
	return &Progress{w: w, tty: IsTerminal(w) && os.Getenv("CI") == ""}
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// barWidth is the bar's width in characters.
const barWidth = 30

// plainEvery is how many snapshots (at ~2 per second) pass between two
// plain log lines.
const plainEvery = 10

// Update draws one snapshot.
func (p *Progress) Update(s config.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	faults := strings.Join(s.Faults, ",")
	changed := faults != p.faults
	p.faults = faults
	if !p.tty {
		if s.Done || changed || p.calls%plainEvery == 1 {
			fmt.Fprintf(p.w, "lockstorm: %s\n", s)
		}
		return
	}
	frac := 0.0
	if s.TimeLimit > 0 {
		frac = min(1, float64(s.Elapsed)/float64(s.TimeLimit))
	}
	n := int(frac * barWidth)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n)
	if faults == "" {
		faults = "-"
	}
	fmt.Fprintf(p.w, "\r\033[K[%s] %5.1fs/%v  ops %d  faults %s  violations %d%s",
		bar, s.Elapsed.Seconds(), s.TimeLimit, s.Ops, faults, s.Violations, s.KindsText())
	if s.Done {
		fmt.Fprintln(p.w)
	}
}
