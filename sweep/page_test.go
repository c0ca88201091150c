package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
)

// handMade is a finished sweep built by hand, no run behind it: the
// default grid with 3 runs per cell whose verdicts follow realistic,
// except one unknown run (1s, renew none, 300ms). Its folder is dir.
func handMade(t *testing.T, dir, topology string) *Result {
	t.Helper()
	r := DefaultRaw()
	r.Topology, r.Seeds = topology, 3
	spec, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Spec: spec, Dir: dir}
	for _, c := range spec.Grid.Cells(spec.Runs) {
		cr := CellResult{Cell: c, Dir: "sweep-default/run-" + c.ID(), Elapsed: 9 * time.Second,
			Metrics: Metrics{Verdict: checker.Valid, Writes: 30, SuccessRate: 0.9}}
		if realistic(c.Point()) == "invalid" && c.Run != 3 {
			cr.Verdict, cr.LostUpdates, cr.LateWrites = checker.Invalid, 2, 3
		}
		if c.TTL == time.Second && c.Renew == "none" && !c.Fenced && c.Pause == 300*ms && c.Run == 2 {
			cr.Verdict, cr.LostUpdates = checker.Unknown, -1
		}
		res.Cells = append(res.Cells, cr)
	}
	res.Total = len(res.Cells)
	return res
}

// The page states its pause model (the real SIGSTOP on standalone
// nodes, the links' freeze on a cluster), shows k/N invalid per setting
// with unknown runs apart, and ends with the recommendation computed from
// the cells.
func TestPage(t *testing.T) {
	for _, tc := range []struct{ topology, model string }{
		{config.TopologyStandalone, "pause model <code>process</code>"},
		{config.TopologyCluster, "pause model <code>links</code>"},
	} {
		res := handMade(t, t.TempDir(), tc.topology)
		if err := WriteOutputs(res); err != nil {
			t.Fatal(err)
		}
		b, err := indexPage(res, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		for _, want := range []string{tc.model, "2/3 invalid", "0/3 invalid", ">1</td>", "fencing off, on",
			`<p class="recommendation" id="recommendation">` + res.Recommendation.Text + "</p>"} {
			if !strings.Contains(html, want) {
				t.Errorf("%s: page lacks %q", tc.topology, want)
			}
		}
		if strings.Contains(html, "SIGSTOP") != (tc.topology == config.TopologyStandalone) {
			t.Errorf("%s: SIGSTOP mentioned: %v", tc.topology, strings.Contains(html, "SIGSTOP"))
		}
		// The unknown run keeps 1s/none from bearing 300ms: the 1s
		// renewed lock is recommended, and the line says the data may
		// change it.
		if want := "smallest TTL with 0 of 3 invalid up to pauses of 300ms: 1s, with renewal every ttl/3; above 300ms only fencing stays valid"; !strings.HasPrefix(res.Recommendation.Text, want) ||
			!strings.Contains(res.Recommendation.Text, "data insufficient: 1 cell") {
			t.Errorf("recommendation %q", res.Recommendation.Text)
		}
		// The recommendation is the page's last paragraph but its note.
		if i, j := strings.LastIndex(html, `class="recommendation"`), strings.LastIndex(html, "<table"); i < j {
			t.Errorf("the recommendation is not at the end of the page")
		}
	}
}

func TestPointsMarkdown(t *testing.T) {
	res := handMade(t, t.TempDir(), config.TopologyStandalone)
	md := PointsMarkdown(res.Spec.Grid, 3, Aggregate(res.Spec.Grid, res.Cells))
	for _, want := range []string{
		"| 200ms | renew none | 300ms | 2/3 invalid | 0 | 1.3 | 90.0% |",
		"| 1s | renew none | 300ms | 0/3 invalid | 1 | 0 | 90.0% |",
		"| 1s | fenced | 1.5s | 0/3 invalid | 0 | 0 | 90.0% |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "\n"); n != 2+12 {
		t.Errorf("%d lines, want 2 + 12 points", n)
	}
}
