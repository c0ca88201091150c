package reports

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// validFaultResult is a valid run of the single lock under client
// pauses: turns of 3 clients (acquire, read v, write v+1, release), each
// of 3 pauses hitting the client that holds the lock.
func validFaultResult(t *testing.T) *analysis.Result {
	t.Helper()
	b := historytest.New()
	const turns, pause = 12, "client-pause"
	for i := range turns {
		p, at := i%3, int64(i)*20
		slot, tok := fmt.Sprintf("c%d", i%3+1), fmt.Sprintf("t%d", i)
		c, ttl := historytest.Client(slot), historytest.TTL(300)
		b.Add(at, history.Invoke, p, history.FAcquire, "k", "", c, ttl)
		b.Add(at+1, history.OK, p, history.FAcquire, "k", tok, c, ttl, historytest.Validity(at+250))
		if i%4 == 1 {
			d := historytest.Detail(fmt.Sprintf("client-pause clients=%s duration=5ms", slot))
			b.Nemesis(at+2, history.Invoke, history.FStart, pause, d).Nemesis(at+2, history.OK, history.FStart, pause, d)
			b.Nemesis(at+7, history.Invoke, history.FStop, pause).Nemesis(at+7, history.OK, history.FStop, pause)
		}
		b.Add(at+8, history.Invoke, p, history.FRead, "k", "", c)
		b.Add(at+9, history.OK, p, history.FRead, "k", "", c, historytest.Value(int64(i)))
		b.Op(at+10, at+11, history.OK, p, history.FWrite, "k", "", c, historytest.Value(int64(i+1)))
		b.Op(at+12, at+13, history.OK, p, history.FRelease, "k", tok, c)
	}
	cfg := config.Config{Name: "banner", Lock: "single", Workload: "counter", Clients: 3, Nodes: 1, TTL: 300 * time.Millisecond,
		Seed: 1, Nemesis: []string{"client-pause"}, MinCoverage: 1}
	res := &analysis.Result{Dir: t.TempDir(), Config: cfg, History: history.Slice(b.History()), Final: map[string]int64{"k": turns}}
	noErr(t, analysis.Check(context.Background(), res))
	return res
}

// The banner's first line proves: a valid run's says what its faults hit,
// how many leases it checked with how many overlaps, and that the
// counter accounts for every acknowledged increment, with the numbers of
// the coverage and the checkers; the terminal summary says the same.
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
