package compare_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/reports"
)

// A real short comparison: without fencing the paused holder's delayed
// write loses updates; with fencing it is rejected and nothing is lost.
// The campaign's JUnit has no failure: both claims hold (the unfenced
// run's invalid verdict is what it claims, not a failure).
func TestRealRun(t *testing.T) {
	// 5 s: two holder pauses (1 s and 2.4 s). With 4 s and one pause, the
	// pause landed after the holder's write on a loaded machine (the write
	// comes 15-75 ms after the acquire) and the fenced run had nothing to
	// reject.
	spec := compare.Spec{TTL: 300 * time.Millisecond, TimeLimit: 5 * time.Second, Store: t.TempDir()}
	f := config.Campaign{Seeds: 1, Parallel: 1}
	f.Run.Store = spec.Store
	res, err := compare.Run(t.Context(), spec, f, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Comparisons) != 1 {
		t.Fatalf("%d comparisons, want 1", len(res.Comparisons))
	}
	cmp := res.Comparisons[0]
	u, fe := cmp.Unfenced.Metrics, cmp.Fenced.Metrics
	if u.LostUpdates <= 0 || u.Verdict != checker.Invalid {
		t.Errorf("without fencing: %+v; want lost updates, invalid", u)
	}
	if fe.LostUpdates != 0 || fe.Verdict != checker.Valid || fe.StaleRejected == 0 || fe.StaleAccepted != 0 {
		t.Errorf("with fencing: %+v; want valid, stale writes rejected, none lost", fe)
	}
	if !cmp.Shows() || res.Campaign.Status() != checker.Valid {
		t.Errorf("Shows() %v, status %v: %v", cmp.Shows(), res.Campaign.Status(), cmp.Findings())
	}
	doc := res.Campaign.JUnit()
	if doc.Failures != 0 || doc.Errors != 0 || doc.Tests != 2 {
		t.Errorf("JUnit: %d tests, %d failures, %d errors; want 2 passing claims", doc.Tests, doc.Failures, doc.Errors)
	}
	b, _ := reports.MarshalJUnit(doc)
	if !strings.Contains(string(b), `failures="0"`) || strings.Contains(string(b), `failures="1"`) {
		t.Errorf("JUnit:\n%s", b)
	}
	index := storetest.Read(t, cmp.Dir, store.IndexFile)
	if n := strings.Count(index, `<img src="data:image/png;base64,`); n != 4 {
		t.Errorf("page embeds %d plots, want both runs' holders and fencing plots", n)
	}
	for _, s := range []compare.Side{cmp.Unfenced, cmp.Fenced} {
		if !strings.Contains(index, page.ReportLink(s.Dir)) {
			t.Errorf("page does not link %s", s.Dir)
		}
	}
}
