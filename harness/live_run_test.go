package harness_test

import (
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/catalog"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// On real runs the live counter's final count is > 0 exactly when the
// checkers found a violation of the kinds it counts: catalogue row 1
// (unsafe-del, holder paused past its TTL: lost updates) counts, row 5
// (fenced lock and resource under the same pauses: stale writes rejected,
// nothing lost) does not.
func TestLiveCounterOnRealRuns(t *testing.T) {
	kinds := map[string]bool{analysis.LiveOverlap: true, analysis.LiveWriteAfterValidity: true,
		analysis.LiveLostUpdate: true, analysis.LiveStaleWrite: true, analysis.LiveAPIOverlap: true}
	rows := catalog.Rows()
	for _, row := range []catalog.Row{rows[0], rows[4]} {
		cfg := row.Config
		cfg.Seed, cfg.MinCoverage, cfg.Store = 1, -1, t.TempDir()
		var last config.Progress
		cfg.OnProgress = func(p config.Progress) { last = p }
		res := storetest.Run(t, harness.Run, cfg)
		found := 0
		for _, r := range res.Verdict.Results {
			for _, a := range r.Anomalies {
				if a.Fatal && kinds[a.Kind] {
					found++
				}
			}
		}
		t.Logf("row %d %s: %v, checkers found %d of the online kinds; live %v", row.N, row.Lock, res.Verdict.Valid, found, last)
		if !last.Done || (last.Violations > 0) != (found > 0) {
			t.Errorf("row %d: live count %d, checkers found %d", row.N, last.Violations, found)
		}
		if row.N == 1 && res.Verdict.Valid != checker.Invalid || row.N == 5 && res.Verdict.Valid != checker.Valid {
			t.Errorf("row %d: verdict %v, against its catalogue row", row.N, res.Verdict.Valid)
		}
	}
}
