package campaign

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/reports"
)

// JUnit is the campaign as one JUnit suite: one test case per claim of
// each run ("<cell> seed <s>: <claim>"), passing when it holds, a
// <failure> when not, an <error> when it cannot be judged; a skipped
// cell's run is <skipped>.
func (r *Report) JUnit() reports.JUnitSuites {
	name := r.Kind
	if r.Name != "" {
		name += "." + r.Name
	}
	class := "lockstorm." + name
	s := reports.JUnitSuite{Name: name, Time: reports.Seconds(r.Elapsed.Seconds()), Timestamp: reports.JUnitTimestamp(r.Started),
		Properties: []reports.JUnitProperty{{Name: "kind", Value: r.Kind}, {Name: "runs", Value: fmt.Sprint(r.Total)}}}
	if r.Shard.Set() {
		s.Properties = append(s.Properties, reports.JUnitProperty{Name: "shard", Value: r.Shard.String()})
	}
	for _, o := range r.Outcomes {
		s.Cases = append(s.Cases, outcomeCases(class, o)...)
	}
	for _, c := range r.Cells {
		s.Cases = append(s.Cases, judgedCase(class, c.Cell+": "+c.Name, c.Judged, ""))
	}
	if r.Interrupted {
		s.Cases = append(s.Cases, reports.JUnitCase{Name: "campaign finished", Classname: class,
			Error: &reports.JUnitProblem{Type: "unknown", Message: fmt.Sprintf("interrupted after %d of %d runs", len(r.Outcomes), r.Planned)}})
	}
	return reports.JUnitDocument(s)
}

// outcomeCases are the test cases of one run.
func outcomeCases(class string, o Outcome) []reports.JUnitCase {
	t := reports.Seconds(o.Elapsed.Seconds())
	out := fmt.Sprintf("verdict: %s\nreplay: %s\nfolder: %s\n", o.Verdict, o.Replay, o.Dir)
	switch {
	case o.Skipped != "":
		return []reports.JUnitCase{{Name: o.Label(), Classname: class, Skipped: &reports.JUnitSkip{Message: o.Skipped}}}
	case o.Error != "" && len(o.Claims) == 0:
		return []reports.JUnitCase{{Name: o.Label(), Classname: class, Time: t,
			Error: &reports.JUnitProblem{Type: "unknown", Message: "the run did not finish: " + o.Error}}}
	}
	var cases []reports.JUnitCase
	for _, c := range o.Claims {
		if o.Error != "" {
			c.Seen = strings.TrimSpace(c.Seen + "; " + o.Error)
			if c.Holds == checker.Valid {
				c.Holds = checker.Unknown
			}
		}
		tc := judgedCase(class, o.Label()+": "+c.Name, c, out)
		tc.Time = t
		cases = append(cases, tc)
	}
	return cases
}

// judgedCase is the test case of a judged claim, with out as its text.
func judgedCase(class, name string, c Judged, out string) reports.JUnitCase {
	tc := reports.JUnitCase{Name: name, Classname: class}
	switch c.Holds {
	case checker.Valid:
		tc.SystemOut = c.Seen + "\n" + out
	case checker.Invalid:
		tc.Failure = &reports.JUnitProblem{Type: "claim", Message: "the claim does not hold: " + c.Seen, Text: out}
	default:
		tc.Error = &reports.JUnitProblem{Type: "unknown", Message: "cannot say: " + c.Seen, Text: out}
	}
	return tc
}
