package power

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// Output files, written to the power folder.
const (
	JSONFile     = "power.json"
	MarkdownFile = "power.md"
)

// Report is a whole power table.
type Report struct {
	// Source says where the runs come from: "run" (run now) or the store
	// folder read by FromStore.
	Source string `json:"source"`
	// Seeds is the number of seeds per scenario asked for (0: whatever
	// the store held); TimeLimit the run length (0 when read from a
	// store).
	Seeds     int           `json:"seeds,omitempty"`
	TimeLimit time.Duration `json:"time_limit_ns,omitempty"`
	Targets   Targets       `json:"targets"`
	Rows      []Row         `json:"rows"`
	// Interrupted is set when the runs were stopped before all finished:
	// the rows hold the finished runs only.
	Interrupted bool `json:"interrupted,omitempty"`
	// Notes are remarks on how stored runs were read (renamed tests,
	// runs without a verdict yet).
	Notes     []string  `json:"notes,omitempty"`
	Generated time.Time `json:"generated"`
}

// AllPass reports whether every row is marked PASS.
func (r *Report) AllPass() bool {
	for _, row := range r.Rows {
		if row.Mark != Pass {
			return false
		}
	}
	return len(r.Rows) > 0
}

// fmtDur renders a detection time in seconds with one decimal, "-" when
// there is none.
func fmtDur(d *float64) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("%.1fs", *d/1000)
}

func (r *Report) heading() (broken, correct string) {
	return fmt.Sprintf("Broken locks (target: detected >= %.0f%% of runs, median time to detect <= %v)", r.Targets.MinDetected*100, r.Targets.MaxMedian),
		fmt.Sprintf("Correct locks (target: %d false alarms; unknown runs are neither passes nor alarms)", r.Targets.MaxFalseAlarms)
}

func brokenCells(row Row) []string {
	detected := fmt.Sprintf("%d/%d %.0f%%", row.Invalid, row.Runs, row.Detected*100)
	if row.Runs == 0 {
		detected = "-"
	}
	return []string{row.Name, row.Setup, fmt.Sprint(row.Runs), detected,
		fmtDur(row.MedianMS), fmtDur(row.P90MS), fmt.Sprint(row.Unknown), fmt.Sprint(row.Errors), mark(row)}
}

func correctCells(row Row) []string {
	return []string{row.Name, row.Setup, fmt.Sprint(row.Runs), fmt.Sprint(row.Valid),
		fmt.Sprint(row.Invalid), fmt.Sprint(row.Unknown), fmt.Sprint(row.Errors), mark(row)}
}

func mark(row Row) string {
	if row.Why != "" {
		return row.Mark + " (" + row.Why + ")"
	}
	return row.Mark
}

var (
	brokenHeader  = []string{"scenario", "setup", "runs", "detected", "median", "p90", "unknown", "errors", "mark"}
	correctHeader = []string{"scenario", "setup", "runs", "valid", "false-alarms", "unknown", "errors", "mark"}
)

// section is one table of the report: the broken locks' or the correct
// ones'.
type section struct {
	heading string
	header  []string
	rows    []Row
	cells   func(Row) []string
}

// sections are the report's tables in order, the empty ones left out.
func (r *Report) sections() []section {
	hb, hc := r.heading()
	broken, correct := r.split()
	var out []section
	if len(broken) > 0 {
		out = append(out, section{hb, brokenHeader, broken, brokenCells})
	}
	if len(correct) > 0 {
		out = append(out, section{hc, correctHeader, correct, correctCells})
	}
	return out
}

func (r *Report) split() (broken, correct []Row) {
	for _, row := range r.Rows {
		if row.Broken {
			broken = append(broken, row)
		} else {
			correct = append(correct, row)
		}
	}
	return broken, correct
}

// WriteText writes the fixed-width table.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(cells []string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	fmt.Fprintf(tw, "power: %s\n", r.describe())
	for _, sec := range r.sections() {
		fmt.Fprintf(tw, "\n%s\n", sec.heading)
		line(sec.header)
		for _, row := range sec.rows {
			line(sec.cells(row))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(tw, "note: %s\n", n)
	}
	return tw.Flush()
}

func (r *Report) describe() string {
	s := "runs from " + r.Source
	if r.Source == SourceRun {
		s = fmt.Sprintf("%d seeds x %v per scenario", r.Seeds, r.TimeLimit)
	}
	if r.Interrupted {
		s += " (interrupted: finished runs only)"
	}
	return s
}

// SourceRun is Report.Source for runs made by Run.
const SourceRun = "run"

// Markdown renders the table as Markdown.
func (r *Report) Markdown() string {
	var b strings.Builder
	row := func(cells []string) { fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | ")) }
	fmt.Fprintf(&b, "# Detection power\n\n%s.\n", r.describe())
	for _, sec := range r.sections() {
		fmt.Fprintf(&b, "\n%s:\n\n", sec.heading)
		row(sec.header)
		row(strings.Split(strings.Repeat("---,", len(sec.header)-1)+"---", ","))
		for _, x := range sec.rows {
			row(sec.cells(x))
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

// WriteFiles writes power.json and power.md into dir (created if needed).
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("power: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("power: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("power: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(r.Markdown()), 0o644); err != nil {
		return fmt.Errorf("power: %w", err)
	}
	return nil
}
