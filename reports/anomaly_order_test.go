package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// The page's anomaly cards, the terminal summary and the JUnit text list
// fatal anomalies first, in checker order (orderedAnomalies).
func TestAnomaliesFatalFirst(t *testing.T) {
	res := pauseResult(t.TempDir())
	nf := func(kind string) checker.Anomaly {
		return checker.Anomaly{Kind: kind, Ops: []int64{1}, Text: kind + " text"}
	}
	first := checker.Result{Name: "exclusion", Valid: checker.Invalid, Anomalies: []checker.Anomaly{
		nf("nonfatal-a"), nf("nonfatal-b"), nf("nonfatal-c"),
		{Kind: "fatal-x", Fatal: true, Ops: []int64{2}, Text: "fatal-x text"}}}
	second := checker.Result{Name: "resource", Valid: checker.Invalid, Anomalies: []checker.Anomaly{
		nf("nonfatal-d"), {Kind: "fatal-y", Fatal: true, Ops: []int64{3}, Text: "fatal-y text"}}}
	res.Verdict = checker.Result{Name: "lockstorm", Valid: checker.Invalid, Results: []checker.Result{first, second}}

	var kinds []string
	for _, a := range orderedAnomalies(res.Verdict) {
		kinds = append(kinds, a.Checker+"/"+a.Kind)
	}
	want := "exclusion/fatal-x resource/fatal-y exclusion/nonfatal-a exclusion/nonfatal-b exclusion/nonfatal-c resource/nonfatal-d"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}

	mustWrite(t, res)
	var cards []string
	for _, m := range regexp.MustCompile(`<span class="kind">([^<]+)</span>`).FindAllStringSubmatch(storetest.Read(t, res.Dir, store.IndexFile), -1) {
		cards = append(cards, m[1])
	}
	if got := strings.Join(cards, " "); got != "fatal-x fatal-y nonfatal-a nonfatal-b nonfatal-c nonfatal-d" {
		t.Errorf("index.html anomaly cards in order %s", got)
	}

	var sum bytes.Buffer
	Summary(&sum, res)
	s := sum.String()
	if i, j := strings.Index(s, "fatal-x"), strings.Index(s, "fatal-y"); i < 0 || j < i || strings.Contains(s, "nonfatal") {
		t.Errorf("summary does not list the fatal anomalies first (and only them):\n%s", s)
	}

	if text := anomalyText(first); !strings.HasPrefix(text, "[fatal-x]") {
		t.Errorf("JUnit text starts %q", firstLine(text))
	}
}
