package sweep

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/reports"
)

// JUnit is the sweep as JUnit XML (`sweep --junit PATH`): one suite for
// the sweep, timestamped when this invocation started, one test case per
// grid point named after it ("ttl 200ms, renew ttl/3, pause 1.5s"), its
// time the sum of its runs' durations:
//
//   - passes when 0 of its N runs were invalid and none unknown;
//   - fails when k > 0 were invalid (message "k/N runs invalid", text
//     the invalid runs' folders);
//   - errors when none was invalid but some were unknown, or fewer
//     than N finished (unknown is neither valid nor invalid);
//   - is skipped when none of its runs finished (an interrupted sweep).
//
// A sweep measures: a failing case is not a defect of the sweep but its
// finding, the settings that break under these pauses, which CI then
// shows by name. The suite's system-out carries the recommendation.
func JUnit(res *Result) ([]byte, error) {
	spec := res.Spec
	agg := Aggregate(spec.Grid, res.Cells)
	suite := reports.JUnitSuite{Name: "sweep " + spec.Name, Timestamp: reports.JUnitTimestamp(res.Started),
		Time: reports.Seconds(res.Elapsed.Seconds()), SystemOut: res.Recommendation.Text + "\n",
		Properties: []reports.JUnitProperty{
			{Name: "runs", Value: fmt.Sprint(spec.Runs)},
			{Name: "seed", Value: fmt.Sprint(spec.Seed)},
			{Name: "time-limit", Value: spec.TimeLimit.String()},
			{Name: "clients", Value: fmt.Sprint(spec.Clients)},
			{Name: "pause-model", Value: spec.PauseModel()},
			{Name: "topology", Value: spec.Topology},
			{Name: "recommendation", Value: res.Recommendation.Text},
		}}
	byPoint := map[Point][]CellResult{}
	for _, c := range res.Cells {
		byPoint[c.Point()] = append(byPoint[c.Point()], c)
	}
	for _, row := range Points(spec.Grid, agg) {
		n := res.planned(row.Point)
		if n == 0 {
			continue // another shard's point
		}
		tc := pointCase(row, byPoint[row.Point], n)
		tc.Classname = "sweep." + spec.Name
		suite.Cases = append(suite.Cases, tc)
	}
	doc := reports.JUnitDocument(suite) // counts the cases
	doc.Name = "lockstorm sweep"
	return reports.MarshalJUnit(doc)
}

// pointCase is one grid point's test case from its finished runs.
func pointCase(row PointRow, runs []CellResult, n int) reports.JUnitCase {
	c := Cell{TTL: row.TTL, Renew: row.Renew, Fenced: row.Fenced, Pause: row.Pause}
	tc := reports.JUnitCase{Name: c.Label()}
	var invalid, unknown, all []string
	for _, r := range runs {
		tc.Time += reports.Seconds(r.Elapsed.Seconds())
		line := fmt.Sprintf("run %d: %s, %s", r.Run, r.Verdict, r.Dir)
		all = append(all, line)
		switch {
		case r.Verdict == checker.Invalid:
			invalid = append(invalid, line)
		case r.Verdict == checker.Unknown:
			unknown = append(unknown, line)
		}
	}
	text := strings.Join(all, "\n")
	switch {
	case len(runs) == 0:
		tc.Skipped = &reports.JUnitSkip{Message: "not run: the sweep stopped before this cell"}
	case len(invalid) > 0:
		msg := fmt.Sprintf("%d/%s invalid", len(invalid), page.Count(len(runs), "run", "runs"))
		if len(unknown) > 0 {
			msg += fmt.Sprintf(", %d unknown", len(unknown))
		}
		if len(runs) < n {
			msg += fmt.Sprintf(" (%d of %s finished)", len(runs), page.Count(n, "run", "runs"))
		}
		tc.Failure = &reports.JUnitProblem{Message: msg + ": " + strings.Join(dirs(invalid), ", "), Type: "invalid", Text: text}
	case len(unknown) > 0:
		tc.Error = &reports.JUnitProblem{Message: fmt.Sprintf("0/%s invalid, %d unknown (neither valid nor invalid)", page.Count(n, "run", "runs"), len(unknown)), Type: "unknown", Text: text}
	case len(runs) < n:
		tc.Error = &reports.JUnitProblem{Message: fmt.Sprintf("only %d of %s finished", len(runs), page.Count(n, "run", "runs")), Type: "incomplete", Text: text}
	default:
		tc.SystemOut = fmt.Sprintf("0/%s invalid\n%s\n", page.Count(n, "run", "runs"), text)
	}
	return tc
}

// dirs are the run folders of "run k: verdict, dir" lines.
func dirs(lines []string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l[strings.LastIndex(l, ", ")+2:])
	}
	return out
}
