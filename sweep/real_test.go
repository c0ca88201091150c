package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A real two-cell sweep (no renewal, no faults, TTL 200ms vs 1s, holds of
// 100-400ms, 3 s runs): the short TTL lets slow holders write after their
// lease ran out and loses updates; the long one does not. Every output
// file exists and each cell links a written run report.
func TestRealSweepTwoCells(t *testing.T) {
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Renew, r.Pause, r.TimeLimit = "real", t.TempDir(), "200ms,1s", "none", "0", "3s"
	if testing.Short() {
		t.Skipf("real runs: two of %s", r.TimeLimit)
	}
	spec, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() || len(res.Cells) != 2 {
		t.Fatalf("%d of %d cells", len(res.Cells), res.Total)
	}
	short, long := res.Cells[0], res.Cells[1]
	if short.TTL != 200*time.Millisecond || short.Verdict != checker.Invalid || short.LostUpdates <= 0 || short.LateWrites == 0 {
		t.Errorf("ttl 200ms without renewal: %+v; want invalid with lost updates and late writes", short.Metrics)
	}
	if long.Verdict != checker.Valid || long.LostUpdates != 0 || long.Writes == 0 {
		t.Errorf("ttl 1s without faults: %+v; want valid, no lost updates", long.Metrics)
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
}
