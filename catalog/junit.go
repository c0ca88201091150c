package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/reports"
)

// JUnit is the catalogue run as one JUnit document: one suite "catalog"
// (timestamp started, time the rows' total) with a test case per row of
// rows, in order, whose time is the row's run in seconds. A row whose
// observation agrees with its expectation passes, also when it expects an
// invalid verdict: the catalogue tests the harness, and finding the
// anomaly is the harness working. A row that disagrees is a failure, or
// an error when its run proved nothing (it could not run, or its verdict
// is unknown although it expected otherwise). A row that did not run
// (out is shorter than rows: interrupted) is skipped. Messages say what
// was expected, what was observed and where the run is.
func JUnit(rows []Row, out []Outcome, seed int64, started time.Time) reports.JUnitSuites {
	s := reports.JUnitSuite{Name: "catalog", Timestamp: reports.JUnitTimestamp(started),
		Properties: []reports.JUnitProperty{{Name: "seed", Value: fmt.Sprint(seed)}}}
	for i, r := range rows {
		tc := reports.JUnitCase{Name: fmt.Sprintf("row %02d %s: %s", r.N, r.Lock, r.Fault), Classname: "lockstorm.catalog"}
		if i >= len(out) {
			tc.Skipped = &reports.JUnitSkip{Message: "not run: the catalogue was interrupted before this row"}
			s.Cases = append(s.Cases, tc)
			continue
		}
		oc := out[i]
		tc.Time = reports.Seconds(oc.Elapsed.Seconds())
		s.Time += tc.Time
		msg := fmt.Sprintf("expected %s; observed %s; run %s", r.Expected, strings.Join(oc.Observed, "; "), runDir(oc))
		switch {
		case oc.Agree:
			tc.SystemOut = msg + "\n"
		case oc.Err != nil || oc.Result == nil || oc.Result.Verdict.Valid == checker.Unknown:
			tc.Error = &reports.JUnitProblem{Message: msg, Type: "unknown", Text: msg}
		default:
			tc.Failure = &reports.JUnitProblem{Message: msg, Type: "disagree", Text: msg}
		}
		s.Cases = append(s.Cases, tc)
	}
	return reports.JUnitDocument(s)
}

// runDir is the row's run folder, or "none" when the run made none.
func runDir(oc Outcome) string {
	if oc.Dir == "" {
		return "none"
	}
	return oc.Dir
}
