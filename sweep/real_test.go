package sweep

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A real sweep of tiny cells: TTL 300ms, no renewal, fencing off and on,
// one 700ms pause of the holder per 3 s run, 2 runs per cell (4 runs).
// The pause outlasts the lease: without fencing the paused holder's
// write lands on the next holder's lease and loses updates; with fencing
// the resource rejects it, so no update is lost and no stale write is
// accepted. Every output file exists, each run links a written report,
// and the page shows k/2 per setting and the recommendation.
func TestRealSweepRunsAndFencing(t *testing.T) {
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Renew, r.Pause, r.TimeLimit = "real", t.TempDir(), "300ms", "none", "700ms", "3s"
	r.HoldMin, r.HoldMax, r.Seeds, r.Fencing = "100ms", "200ms", 2, "off,on"
	spec, res := runReal(t, r, "four")
	if !res.Complete() || len(res.Cells) != 4 {
		t.Fatalf("%d of %d cells", len(res.Cells), res.Total)
	}
	agg := Aggregate(spec.Grid, res.Cells)
	off, on := agg[Point{TTL: 300 * ms, Renew: "none", Pause: 700 * ms}], agg[Point{TTL: 300 * ms, Renew: "none", Pause: 700 * ms, Fenced: true}]
	if off.Runs != 2 || on.Runs != 2 {
		t.Fatalf("runs per point: off %d, on %d", off.Runs, on.Runs)
	}
	if off.Invalid == 0 || off.LostUpdates == 0 {
		t.Errorf("without fencing: %+v; want invalid runs with lost updates", off)
	}
	for _, c := range res.Cells {
		if c.Fenced && (c.LostUpdates != 0 || c.StaleAccepted != 0) {
			t.Errorf("fenced run %d: %+v; want no lost update, no stale write accepted", c.Run, c.Metrics)
		}
		if c.Fenced && c.Verdict == checker.Invalid {
			t.Errorf("fenced run %d invalid: %+v", c.Run, c.Metrics)
		}
	}
	storetest.NonEmpty(t, res.Dir, TableMDFile, TableCSVFile, ViolationsFile, AvailabilityFile, IndexFile)
	index := storetest.Read(t, res.Dir, IndexFile)
	for _, c := range res.Cells {
		link := page.ReportLink(c.Dir)
		if !strings.Contains(index, `href="`+link+`"`) {
			t.Errorf("index.html does not link %s", link)
		}
		storetest.NonEmpty(t, res.Dir, link)
	}
	for _, want := range []string{off.KN(), `id="recommendation">` + res.Recommendation.Text} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	t.Logf("recommendation: %s", res.Recommendation.Text)
}

// The cell of issue 27.2, for real: the fenced lock at TTL 200ms under a
// 300ms pause of the holder, whose holders (no watchdog) write after
// their validity all the time. The fencing resource accepts such a write
// only in token order (else it rejects it), which checker.LateWriteFatal
// calls harmless: no run of the cell is invalid, and its late writes are
// counted apart.
func TestRealSweepFencedShortTTLNotRed(t *testing.T) {
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Pause, r.TimeLimit, r.Seeds, r.Fencing = "late", t.TempDir(), "200ms", "300ms", "4s", 2, "on"
	_, res := runReal(t, r, "two")
	late := 0
	for _, c := range res.Cells {
		late += c.LateInOrder
		if c.Verdict == checker.Invalid || c.LostUpdates != 0 || c.StaleAccepted != 0 || c.LateWrites != 0 {
			t.Errorf("fenced run %d: %+v; want not invalid, no lost update, no stale or late write accepted out of order", c.Run, c.Metrics)
		}
	}
	t.Logf("%d runs, %d late writes accepted in token order", len(res.Cells), late)
}

// runReal runs the sweep r describes (n runs, for the skip message),
// unless -short, and returns its spec and result.
func runReal(t *testing.T, r Raw, n string) (Spec, *Result) {
	t.Helper()
	spec, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		t.Skipf("real runs: %s of %s", n, r.TimeLimit)
	}
	res, err := Run(t.Context(), spec, config.Campaign{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return spec, res
}
