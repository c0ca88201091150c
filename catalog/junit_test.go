package catalog

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
)

// A row that agrees passes even when it expected (and saw) an invalid
// verdict; one that disagrees with a definite verdict fails; one whose run
// proved nothing (unknown, or an error) is an error; a row not run is
// skipped. Messages name expected, observed and the run folder.
func TestCatalogJUnit(t *testing.T) {
	rows := []Row{
		{N: 1, Lock: "single", Fault: "pause", Expected: "invalid"},
		{N: 2, Lock: "fenced", Fault: "pause", Expected: "valid"},
		{N: 3, Lock: "redlock", Fault: "crash", Expected: "valid"},
		{N: 4, Lock: "single", Fault: "none", Expected: "valid"},
		{N: 5, Lock: "single", Fault: "none", Expected: "valid"},
	}
	res := func(v checker.Validity) *analysis.Result { return &analysis.Result{Verdict: checker.Result{Valid: v}} }
	out := []Outcome{
		{Row: rows[0], Agree: true, Observed: []string{"verdict invalid"}, Elapsed: 2 * time.Second, Dir: "store/a/1", Result: res(checker.Invalid)},
		{Row: rows[1], Agree: false, Observed: []string{"verdict invalid (expected verdict valid)"}, Elapsed: time.Second, Dir: "store/b/1", Result: res(checker.Invalid)},
		{Row: rows[2], Agree: false, Observed: []string{"verdict unknown"}, Elapsed: time.Second, Dir: "store/c/1", Result: res(checker.Unknown)},
		{Row: rows[3], Observed: []string{"error: no redis"}, Elapsed: time.Millisecond, Err: errors.New("no redis")},
	}
	doc := JUnit(rows, out, 7, time.Now())
	s := doc.Suites[0]
	if s.Tests != 5 || s.Failures != 1 || s.Errors != 2 || s.Skipped != 1 || doc.Tests != 5 {
		t.Fatalf("counts tests %d failures %d errors %d skipped %d, want 5 1 2 1", s.Tests, s.Failures, s.Errors, s.Skipped)
	}
	c := s.Cases
	if c[0].Failure != nil || c[0].Error != nil || c[0].Skipped != nil || c[0].Time != 2 {
		t.Errorf("row agreeing on invalid should pass in 2s: %+v", c[0])
	}
	if c[1].Failure == nil || !strings.Contains(c[1].Failure.Message, "expected valid; observed verdict invalid") || !strings.Contains(c[1].Failure.Message, "store/b/1") {
		t.Errorf("disagreeing row: %+v", c[1].Failure)
	}
	if c[2].Error == nil || c[3].Error == nil || !strings.Contains(c[3].Error.Message, "run none") {
		t.Errorf("unknown and error rows should be errors: %+v %+v", c[2], c[3])
	}
	if c[4].Skipped == nil || s.Timestamp == "" {
		t.Errorf("row not run: %+v; timestamp %q", c[4], s.Timestamp)
	}
}
