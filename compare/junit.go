package compare

import (
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/reports"
)

// JUnit is the comparison as one JUnit document: each side's run as its
// own suite (reports.RunSuite, one case per checker), then a suite
// "compare" with one case, "fencing makes the difference", for the
// comparison's claim: it passes when the comparison shows it (Shows),
// fails when it does not (the message holds both findings), and is an
// error when the comparison did not finish (interrupted, or runErr, the
// error Run returned). Sides that did not run are left out.
func (c *Comparison) JUnit(runErr error) reports.JUnitSuites {
	var suites []reports.JUnitSuite
	for _, s := range []Side{c.Unfenced, c.Fenced} {
		if s.Result != nil {
			suites = append(suites, reports.RunSuite(s.Result))
		}
	}
	started := c.Started
	if started.IsZero() {
		started = time.Now()
	}
	tc := reports.JUnitCase{Name: "fencing makes the difference", Classname: "lockstorm.compare", Time: reports.Seconds(c.Elapsed.Seconds())}
	switch {
	case runErr != nil:
		tc.Error = &reports.JUnitProblem{Message: "the comparison did not finish: " + runErr.Error(), Type: "unknown", Text: runErr.Error()}
	case c.Interrupted:
		tc.Error = &reports.JUnitProblem{Message: "the comparison was interrupted", Type: "unknown"}
	case !c.Shows():
		text := strings.Join(c.Findings(), "\n")
		tc.Failure = &reports.JUnitProblem{Message: "the comparison does not show what fencing should change: " + strings.Join(c.Findings(), "; "), Type: "invalid", Text: text}
	default:
		tc.SystemOut = strings.Join(c.Findings(), "\n") + "\npage: " + c.Dir + "\n"
	}
	if tc.Time <= 0 {
		tc.Time = reports.Seconds(time.Since(started).Seconds())
	}
	suites = append(suites, reports.JUnitSuite{Name: "compare", Time: tc.Time, Timestamp: reports.JUnitTimestamp(started),
		Properties: []reports.JUnitProperty{{Name: "lock", Value: c.Spec.Lock}, {Name: "ttl", Value: c.Spec.TTL.String()},
			{Name: "pause", Value: c.Spec.Pause.String()}, {Name: "page", Value: c.Dir}},
		Cases: []reports.JUnitCase{tc}})
	return reports.JUnitDocument(suites...)
}
