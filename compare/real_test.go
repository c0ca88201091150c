package compare_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A real short comparison: without fencing the paused holder's delayed
// write loses updates; with fencing it is rejected and nothing is lost.
func TestRealRun(t *testing.T) {
	spec := compare.Spec{TTL: 300 * time.Millisecond, TimeLimit: 5 * time.Second, Store: t.TempDir()}
	if testing.Short() {
		t.Skipf("real runs: two of %v", spec.TimeLimit)
	}
	cmp, err := compare.Run(t.Context(), spec, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, f := cmp.Unfenced.Metrics, cmp.Fenced.Metrics
	if u.LostUpdates <= 0 || u.Verdict != checker.Invalid {
		t.Errorf("without fencing: %+v; want lost updates, invalid", u)
	}
	if f.LostUpdates != 0 || f.Verdict != checker.Valid || f.StaleRejected == 0 || f.StaleAccepted != 0 {
		t.Errorf("with fencing: %+v; want valid, stale writes rejected, none lost", f)
	}
	if !cmp.Shows() {
		t.Errorf("Shows() false: %v", cmp.Findings())
	}
	if u.Faults != 2 || f.Faults != 2 {
		t.Errorf("pauses: %d and %d, want the same 2 in both", u.Faults, f.Faults)
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
