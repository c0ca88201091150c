package sweep

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Bar renders a sweep's progress over cells: on a terminal one line
// redrawn in place (a bar over cells, the current cell and its run's
// progress); otherwise a plain line when each cell starts and ends.
type Bar struct {
	w   io.Writer
	tty bool
	mu  sync.Mutex
}

// NewBar returns a renderer writing to w; tty selects the redrawn bar
// (the CLI passes reports.IsTerminal(w) && CI unset).
func NewBar(w io.Writer, tty bool) *Bar { return &Bar{w: w, tty: tty} }

// barWidth is the width of the bar in characters.
const barWidth = 24

// Update draws one event.
func (b *Bar) Update(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tty {
		switch {
		case e.Done && e.Skipped:
			fmt.Fprintf(b.w, "sweep: cell %d/%d %s: done before, skipped\n", e.Index+1, e.Total, runLabel(e.Cell))
		case e.Done:
			fmt.Fprintf(b.w, "sweep: cell %d/%d %s: %s\n", e.Index+1, e.Total, runLabel(e.Cell), resultLine(e.Result))
		case e.Run.TimeLimit == 0:
			fmt.Fprintf(b.w, "sweep: cell %d/%d %s: running (%.0fs into the sweep)\n", e.Index+1, e.Total, runLabel(e.Cell), e.Elapsed.Seconds())
		}
		return
	}
	frac := float64(e.Index) / float64(max(e.Total, 1))
	if e.Run.TimeLimit > 0 {
		frac += min(1, float64(e.Run.Elapsed)/float64(e.Run.TimeLimit)) / float64(max(e.Total, 1))
	}
	if e.Done {
		frac = float64(e.Index+1) / float64(max(e.Total, 1))
	}
	n := min(int(frac*barWidth), barWidth)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n)
	status := fmt.Sprintf("%.1fs/%v", e.Run.Elapsed.Seconds(), e.Run.TimeLimit)
	if e.Done {
		status = resultLine(e.Result)
		if e.Skipped {
			status = "done before, skipped"
		}
	}
	fmt.Fprintf(b.w, "\r\033[K[%s] cell %d/%d  %s  %s  (%.0fs)", bar, e.Index+1, e.Total, runLabel(e.Cell), status, e.Elapsed.Seconds())
	if e.Done {
		fmt.Fprintln(b.w)
	}
}

// runLabel is a cell's label with its run: "ttl 1s, fenced, pause 1.5s,
// run 2".
func runLabel(c Cell) string { return fmt.Sprintf("%s, run %d", c.Label(), c.Run) }

func resultLine(c *CellResult) string {
	if c == nil {
		return ""
	}
	lost := "?"
	if c.LostUpdates >= 0 {
		lost = fmt.Sprint(c.LostUpdates)
	}
	return fmt.Sprintf("%s, lost updates %s, acquire success %.0f%%, lock losses %d", c.Verdict, lost, 100*c.SuccessRate, c.LockLosses)
}
