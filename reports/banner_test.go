package reports

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// validFaultResult is a valid run of the single lock, 3 processes taking
// 12 turns, each of 3 client pauses hitting the holder.
func validFaultResult(t *testing.T) *analysis.Result {
	cfg := config.Config{Name: "banner", Lock: "single", MinCoverage: 1}
	return turnsResult(t, cfg, 12, func(i int) int { return i % 3 }, func(i int) bool { return i%4 == 1 })
}

// A valid run's banner (and summary) says what its faults hit, its leases
// and overlaps, and its counter, in the coverage's and checkers' numbers.
func TestBannerValidSaysWhatWasExercised(t *testing.T) {
	res := validFaultResult(t)
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("verdict %v: %s", res.Verdict.Valid, res.Verdict.Error)
	}
	var applied, holder, leases, acked int
	for _, k := range res.Coverage.Kinds {
		applied, holder = applied+k.Applied, holder+k.TouchedHolder
	}
	for _, r := range res.Verdict.Results {
		switch d := r.Details.(type) {
		case checker.ExclusionDetails:
			leases = d.Leases
		case checker.ResourceDetails:
			acked = d.Counter["k"].Acked
		}
	}
	if applied == 0 || leases == 0 || acked == 0 {
		t.Fatalf("nothing exercised: %d faults, %d leases, %d writes", applied, leases, acked)
	}
	want := fmt.Sprintf("%d of %d faults hit a holder · %d leases, 0 overlaps within validity · counter exact %d/%d", holder, applied, leases, acked, acked)
	mustWrite(t, res)
	m := regexp.MustCompile(`<div class="proof" id="proof">([^<]*)</div>`).FindStringSubmatch(storetest.Read(t, res.Dir, store.IndexFile))
	if got := ""; m == nil || html.UnescapeString(m[1]) != want {
		if m != nil {
			got = m[1]
		}
		t.Errorf("banner:\n got %q\nwant %q", got, want)
	}
	var sum bytes.Buffer
	Summary(&sum, res)
	if !strings.HasPrefix(sum.String(), "verdict: valid\n  "+want+"\n") {
		t.Errorf("summary does not open with the proof line:\n%s", sum.String())
	}
}

// The coverage table's columns are defined under it on the page, and in
// run's --help (coverage.Legend, from the same coverage.Columns).
func TestCoverageLegend(t *testing.T) {
	res := validFaultResult(t)
	mustWrite(t, res)
	b := storetest.Read(t, res.Dir, store.IndexFile)
	legend := regexp.MustCompile(`(?s)<dl class="legend" id="coverage-legend">(.*?)</dl>`).FindStringSubmatch(string(b))
	if legend == nil {
		t.Fatal("index.html has no coverage legend")
	}
	for _, want := range []string{
		"<dt>write</dt><dd>applied faults that hit a client with a resource operation in flight",
		"<dt>exercised</dt><dd>applied faults that hit a holder or a waiter: what the bar (--min-coverage) counts</dd>",
		"<dt>holder at start</dt>",
	} {
		if !strings.Contains(legend[1], want) {
			t.Errorf("legend lacks %q:\n%s", want, legend[1])
		}
	}
	if n := strings.Count(legend[1], "<dt>"); n != len(coverage.Columns) || n != 7 {
		t.Errorf("legend defines %d columns, want the table's 7", n)
	}
}
