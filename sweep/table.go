package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/page"
)

// column is one column of the sweep table.
type column struct {
	head string
	// md and csv render a cell's value for each format.
	md, csv func(CellResult) string
}

func columns() []column {
	same := func(f func(CellResult) string) (func(CellResult) string, func(CellResult) string) { return f, f }
	col := func(head string, f func(CellResult) string) column {
		md, cs := same(f)
		return column{head, md, cs}
	}
	lost := func(c CellResult) string {
		if c.LostUpdates < 0 {
			return "?"
		}
		return fmt.Sprint(c.LostUpdates)
	}
	return []column{
		col("ttl", func(c CellResult) string { return page.Dur(c.TTL) }),
		col("renew", func(c CellResult) string { return c.Renew }),
		col("fencing", func(c CellResult) string { return onOff(c.Fenced) }),
		col("fault", func(c CellResult) string { return nemesisOf(c.Nemesis) }),
		col("pause", func(c CellResult) string { return page.Dur(c.Pause) }),
		col("run", func(c CellResult) string { return fmt.Sprint(c.Run) }),
		{"verdict", func(c CellResult) string {
			if c.Verdict == checker.Invalid {
				return "**invalid**"
			}
			return c.Verdict.String()
		}, func(c CellResult) string { return c.Verdict.String() }},
		col("lost updates", lost),
		col("writes", func(c CellResult) string { return fmt.Sprint(c.Writes) }),
		col("overlaps", func(c CellResult) string { return fmt.Sprint(c.Overlaps) }),
		col("late writes", func(c CellResult) string { return fmt.Sprint(c.LateWrites) }),
		col("late in order", func(c CellResult) string { return fmt.Sprint(c.LateInOrder) }),
		col("stale accepted", func(c CellResult) string { return fmt.Sprint(c.StaleAccepted) }),
		{"acquire success", func(c CellResult) string { return fmt.Sprintf("%.1f%%", 100*c.SuccessRate) },
			func(c CellResult) string { return fmt.Sprintf("%.4f", c.SuccessRate) }},
		{"acquire p50", func(c CellResult) string { return page.MS(c.WaitP50) },
			func(c CellResult) string { return fmt.Sprintf("%.1f", page.Millis(c.WaitP50)) }},
		{"acquire p99", func(c CellResult) string { return page.MS(c.WaitP99) },
			func(c CellResult) string { return fmt.Sprintf("%.1f", page.Millis(c.WaitP99)) }},
		col("acquires/s", func(c CellResult) string { return fmt.Sprintf("%.2f", c.Throughput) }),
		col("lock losses", func(c CellResult) string { return fmt.Sprint(c.LockLosses) }),
		{"report", func(c CellResult) string {
			if c.Dir == "" {
				return ""
			}
			return fmt.Sprintf("[report](%s)", page.ReportLink(c.Dir))
		}, func(c CellResult) string { return c.Dir }},
	}
}

// csvHeads are the CSV column names: units in the name, no spaces.
var csvHeads = map[string]string{
	"acquire success": "acquire_success_rate", "acquire p50": "acquire_p50_ms", "acquire p99": "acquire_p99_ms",
	"acquires/s": "acquires_ok_per_s", "report": "run_dir", "late in order": "late_writes_in_order",
}

// Markdown renders the cells as a Markdown table, one row per run.
func Markdown(cells []CellResult) string {
	cols := columns()
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cols {
		b.WriteString(" " + c.head + " |")
	}
	b.WriteString("\n|")
	for i := range cols {
		if i < 5 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, cr := range cells {
		b.WriteString("|")
		for _, c := range cols {
			b.WriteString(" " + strings.ReplaceAll(c.md(cr), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// CSV renders the cells as CSV with a header row; durations in ms, rates
// as fractions.
func CSV(cells []CellResult) ([]byte, error) {
	cols := columns()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = csvHeads[c.head]
		if head[i] == "" {
			head[i] = strings.ReplaceAll(c.head, " ", "_")
		}
	}
	if err := w.Write(head); err != nil {
		return nil, err
	}
	for _, cr := range cells {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.csv(cr)
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// Point is one grid point (a cell without its run number).
type Point struct {
	TTL    time.Duration
	Renew  string
	Pause  time.Duration
	Fenced bool
	// Nemesis is the fault: "" for a client pause, else its name.
	Nemesis string
}

// Setting is the point's lock setting and fault.
func (p Point) Setting() Setting {
	return Setting{Renew: p.Renew, Fenced: p.Fenced, Nemesis: p.Nemesis}
}

// Agg summarises a grid point's runs.
type Agg struct {
	Runs    int
	Invalid int
	Unknown int
	// Violations, LostUpdates and SuccessRate are means over the runs.
	Violations  float64
	LostUpdates float64
	SuccessRate float64
	Writes      float64
	LateWrites  float64
	LateInOrder float64
}

// Aggregate groups finished cells by grid point.
func Aggregate(g Grid, cells []CellResult) map[Point]Agg {
	out := map[Point]Agg{}
	for _, c := range cells {
		p := c.Point()
		a := out[p]
		a.Runs++
		switch c.Verdict {
		case checker.Invalid:
			a.Invalid++
		case checker.Unknown:
			a.Unknown++
		}
		a.Violations += float64(c.Violations())
		a.LostUpdates += float64(max(c.LostUpdates, 0))
		a.SuccessRate += c.SuccessRate
		a.Writes += float64(c.Writes)
		a.LateWrites += float64(c.LateWrites)
		a.LateInOrder += float64(c.LateInOrder)
		out[p] = a
	}
	for p, a := range out {
		n := float64(a.Runs)
		a.Violations /= n
		a.LostUpdates /= n
		a.SuccessRate /= n
		a.Writes /= n
		a.LateWrites /= n
		a.LateInOrder /= n
		out[p] = a
	}
	return out
}

// KN is the point's invalid share as the page shows it: "2/3 invalid".
func (a Agg) KN() string { return fmt.Sprintf("%d/%d invalid", a.Invalid, a.Runs) }

// PointRow is one grid point's summary: its runs' verdicts counted.
type PointRow struct {
	Point
	Agg
	// Ran is false for a point without a finished run.
	Ran bool
}

// Points lists g's points in grid order (TTL, setting, pause) with
// their aggregates.
func Points(g Grid, agg map[Point]Agg) []PointRow {
	var out []PointRow
	for _, c := range g.Cells(1) {
		a, ok := agg[c.Point()]
		out = append(out, PointRow{Point: c.Point(), Agg: a, Ran: ok})
	}
	return out
}

// InvalidOf is the point's "k/N invalid" over its finished runs, with
// "(N of 3 runs finished)" when fewer than the runs asked for finished;
// "not run" for none.
func (r PointRow) InvalidOf(runs int) string {
	if !r.Ran {
		return "not run"
	}
	s := r.KN()
	if r.Runs < runs {
		s += fmt.Sprintf(" (%d of %s finished)", r.Runs, page.Count(runs, "run", "runs"))
	}
	return s
}

// PointsMarkdown is the summary the terminal shows: one row per grid
// point with k/N invalid and its unknown runs apart (never counted as
// valid or invalid).
func PointsMarkdown(g Grid, runs int, agg map[Point]Agg) string {
	var b strings.Builder
	length := "pause"
	if len(g.nemeses()) > 1 || g.nemeses()[0] != NemesisClientPause {
		length = "fault length"
	}
	fmt.Fprintf(&b, "| %s | setting | %s | invalid | unknown | violations/run | acquire success |\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n",
		strings.Replace(g.Lock.ttlName(), "TTL", "ttl", 1), length)
	for _, r := range Points(g, agg) {
		if !r.Ran {
			fmt.Fprintf(&b, "| %s | %s | %s | not run | | | |\n", page.Dur(r.TTL), g.Lock.Name(r.Setting()), pauseName(r.Pause))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %.1f%% |\n", page.Dur(r.TTL), g.Lock.Name(r.Setting()), pauseName(r.Pause),
			r.InvalidOf(runs), r.Unknown, trim1(r.Violations), 100*r.SuccessRate)
	}
	return b.String()
}
