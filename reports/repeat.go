package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/page"
)

// RunHeader is the line printed before each run's summary in a campaign:
// "run 2/5  seed 123".
func RunHeader(w io.Writer, i, n int, res *analysis.Result) {
	fmt.Fprintf(w, "\n== run %d/%d  seed %d ==\n", i, n, res.Config.Seed)
}

// RepeatSummary writes a campaign's summary: the aggregate verdict, k/N
// runs per verdict (N the runs asked for), why the campaign stopped early,
// and for each run that was not valid its verdict, its replay line (its
// own seed) and its folder.
func RepeatSummary(w io.Writer, c *analysis.Campaign) {
	fmt.Fprintf(w, "\ncampaign: %s from base seed %d\n", page.Count(c.Planned, "run", "runs"), c.Base)
	fmt.Fprintf(w, "verdict: %s  (invalid if any run is invalid, else unknown if any is unknown or the campaign was cut short)\n", verdictWord(c.Verdict))
	var counts []string
	for _, v := range []checker.Validity{checker.Valid, checker.Invalid, checker.Unknown} {
		counts = append(counts, fmt.Sprintf("%s %d/%d", verdictWord(v), c.Count(v), c.Planned))
	}
	if missing := c.Planned - len(c.Runs); missing > 0 {
		counts = append(counts, fmt.Sprintf("not run %d/%d", missing, c.Planned))
	}
	fmt.Fprintf(w, "runs: %s\n", strings.Join(counts, ", "))
	switch {
	case c.Interrupted:
		fmt.Fprintf(w, "interrupted after %d of %s: the campaign is incomplete; its verdict is at best unknown\n", len(c.Runs), page.Count(c.Planned, "run", "runs"))
	case c.StoppedEarly:
		fmt.Fprintf(w, "stopped at the first invalid run (--until-invalid), run %d of %d\n", len(c.Runs), c.Planned)
	}
	for i, r := range c.Runs {
		if r.Verdict.Valid == checker.Valid {
			continue
		}
		line := fmt.Sprintf("run %d %s  seed %d", c.Number(i), verdictWord(r.Verdict.Valid), r.Config.Seed)
		if r.Incomplete != "" {
			line += "  (incomplete: " + r.Incomplete + ")"
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "  replay: %s\n", Replay(r))
		fmt.Fprintf(w, "  folder: %s\n", r.Dir)
	}
}
