package sweep

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
)

// One suite with a timestamp; one case per grid point with the sum of
// its runs' durations: 0/3 invalid passes, k/3 invalid fails naming the
// invalid runs' folders, an unknown run is an error, a point with runs
// missing is an error, a point never run is skipped.
func TestJUnit(t *testing.T) {
	res := handMade(t, t.TempDir(), config.TopologyStandalone)
	// Drop the 1s renewed lock's runs 2 and 3 at 1.5s, and every run of
	// the 1s fenced lock at 1.5s, and run 3 of the 1s renewed lock at
	// 300ms: the sweep was interrupted.
	var kept []CellResult
	for _, c := range res.Cells {
		p := c.Point()
		if p.TTL == time.Second && p.Pause == 1500*ms && (p.Fenced || (p.Renew == "ttl/3" && c.Run > 1)) ||
			p.TTL == time.Second && p.Pause == 300*ms && p.Renew == "ttl/3" && !p.Fenced && c.Run == 3 {
			continue
		}
		kept = append(kept, c)
	}
	res.Cells, res.Elapsed = kept, 5*time.Minute
	if err := WriteOutputs(res); err != nil {
		t.Fatal(err)
	}
	b, err := JUnit(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc reports.JUnitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Timestamp != "2026-12-03T10:00:00" || s.Tests != 12 || len(s.Cases) != 12 || s.Time != 300 {
		t.Errorf("suite %s: timestamp %q, %d tests, %d cases, %.0fs", s.Name, s.Timestamp, s.Tests, len(s.Cases), s.Time)
	}
	// realistic: 8 invalid points; 1s/none/300ms has an unknown run,
	// 1s/ttl/3/1.5s is invalid in its one run left, 1s/ttl/3/300ms has 2
	// valid runs of 3, 1s/fenced/1.5s was not run.
	if doc.Name != "lockstorm sweep" || doc.Tests != 12 || doc.Time != 300 {
		t.Errorf("root %q: %d tests, %.0fs", doc.Name, doc.Tests, doc.Time)
	}
	if s.Failures != 8 || s.Errors != 2 || s.Skipped != 1 || doc.Failures != 8 || doc.Errors != 2 {
		t.Errorf("failures %d, errors %d, skipped %d", s.Failures, s.Errors, s.Skipped)
	}
	cases := map[string]reports.JUnitCase{}
	for _, c := range s.Cases {
		cases[c.Name] = c
	}
	pass := cases["ttl 1s, fenced, pause 300ms"]
	if pass.Failure != nil || pass.Error != nil || pass.Skipped != nil || pass.Time != 27 {
		t.Errorf("0/3 invalid: %+v", pass)
	}
	fail := cases["ttl 200ms, renew none, pause 300ms"]
	if fail.Failure == nil || !strings.HasPrefix(fail.Failure.Message, "2/3 runs invalid: sweep-default/run-ttl-200ms_renew-none_pause-300ms_run-1, ") {
		t.Errorf("2/3 invalid: %+v", fail.Failure)
	}
	if e := cases["ttl 1s, renew none, pause 300ms"].Error; e == nil || e.Type != "unknown" || !strings.Contains(e.Message, "1 unknown") {
		t.Errorf("unknown run: %+v", e)
	}
	if f := cases["ttl 1s, renew ttl/3, pause 1.5s"].Failure; f == nil || !strings.HasPrefix(f.Message, "1/1 run invalid (1 of 3 runs finished): ") {
		t.Errorf("partial invalid point: %+v", f)
	}
	if e := cases["ttl 1s, renew ttl/3, pause 300ms"].Error; e == nil || e.Type != "incomplete" || e.Message != "only 2 of 3 runs finished" {
		t.Errorf("2 of 3 runs: %+v", e)
	}
	if got := (PointRow{Agg: Agg{Runs: 2, Invalid: 1}, Ran: true}).InvalidOf(3); got != "1/2 invalid (2 of 3 runs finished)" {
		t.Errorf("partial point: %q", got)
	}
	if sk := cases["ttl 1s, fenced, pause 1.5s"].Skipped; sk == nil {
		t.Errorf("a point never run is not skipped")
	}
	if !strings.Contains(s.SystemOut, res.Recommendation.Text) || res.Recommendation.Text == "" {
		t.Errorf("system-out %q lacks the recommendation", s.SystemOut)
	}
}
