package reports

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/internal/store"
)

// summaryAnomalies is how many anomalies the summary lists.
const summaryAnomalies = 5

// Summary writes the verdict summary printed at the end of a run: the
// verdicts, the first anomalies, the coverage, the replay, the report.
func Summary(w io.Writer, res *analysis.Result) {
	v := res.Verdict
	fmt.Fprintf(w, "verdict: %s\n", verdictWord(v.Valid))
	if line := bannerLine(res); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  %s\n", v.Error)
	}
	if res.Incomplete != "" && !strings.Contains(v.Error, res.Incomplete) {
		fmt.Fprintf(w, "  incomplete run: %s\n", res.Incomplete)
	}
	for _, c := range v.Results {
		line := fmt.Sprintf("  %-10s %s", c.Name, verdictWord(c.Valid))
		if c.NotApplicable != "" {
			line = fmt.Sprintf("  %-10s not applicable  (%s)", c.Name, c.NotApplicable)
		}
		if c.Error != "" {
			line += "  (" + c.Error + ")"
		}
		fmt.Fprintln(w, line)
	}
	for i, a := range orderedAnomalies(v) {
		if !a.Fatal || i == summaryAnomalies {
			break // fatal ones come first
		}
		if i == 0 {
			fmt.Fprintln(w, "anomalies:")
		}
		fmt.Fprintf(w, "  [%s] %s: %s (ops %s)%s\n", a.Checker, a.Kind, a.Text, opList(a.Ops), faultNote(a.Faults))
	}
	coverageSummary(w, res.Coverage)
	if o := res.Overhead; o != nil && o.Records > 0 {
		line := fmt.Sprintf("harness: %d records, %.0f records/s", o.Records, o.RecordsPerSec)
		if o.Completions > 0 {
			line += fmt.Sprintf(", %.1f%% of completions unknown", 100*float64(o.Unknown)/float64(o.Completions))
		}
		if o.ProxiedP50 > 0 {
			line += fmt.Sprintf("; proxies added p50 %.0f µs, p99 %.0f µs per op", o.ProxyAddedP50, o.ProxyAddedP99)
		}
		fmt.Fprintln(w, line)
	}
	if v.Valid != checker.Valid {
		if configEmpty(res.Config) {
			fmt.Fprintf(w, "replay: %s\n", unknownReplay)
		} else if note := replayNote(ReplayConfig(res)); note != "" {
			fmt.Fprintf(w, "seed: %d  (%s)\n", res.Config.Seed, note)
		} else {
			fmt.Fprintf(w, "seed: %d  (replay: %s)\n", res.Config.Seed, ReplayCommand(ReplayConfig(res)))
		}
	}
	if res.Dir != "" {
		fmt.Fprintf(w, "report: %s\n", filepath.Join(res.Dir, store.IndexFile))
	}
}

func verdictWord(v checker.Validity) string {
	switch v {
	case checker.Valid:
		return "valid"
	case checker.Invalid:
		return "INVALID"
	}
	return "unknown"
}

func opList(ops []int64) string {
	parts := make([]string, 0, len(ops))
	for i, o := range ops {
		if i == 8 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(o))
	}
	return strings.Join(parts, ",")
}

func faultNote(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return " during " + strings.Join(f, ", ")
}

// coverageSummary writes the coverage block: one line per fault kind,
// then the shortfall lines. Nothing for a run without faults.
func coverageSummary(w io.Writer, c *coverage.Report) {
	if c == nil {
		return
	}
	fmt.Fprintln(w, "coverage:")
	width := 0
	for _, k := range c.Kinds {
		width = max(width, len(k.Kind))
	}
	for _, k := range c.Kinds {
		fmt.Fprintf(w, "  %-*s  planned %d  applied %d  holder %d (%d at start)  waiter %d  write %d\n",
			width, k.Kind, k.Planned, k.Applied, k.TouchedHolder, k.HolderAtStart, k.TouchedWaiter, k.TouchedWrite)
	}
	if c.Unjudged != "" {
		fmt.Fprintf(w, "  %s\n", c.Unjudged)
	}
	for _, g := range c.Gaps {
		fmt.Fprintf(w, "  shortfall: %s\n", g)
	}
}
