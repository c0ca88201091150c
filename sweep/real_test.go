package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/reports"
)

// A real two-cell sweep (no renewal, no faults, TTL 200ms vs 1s, holds of
// 100-400ms, 3 s runs): the short TTL lets slow holders write after their
// lease ran out and loses updates; the long one does not. Every output
// file exists and each cell links a written run report.
func TestRealSweepTwoCells(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	store := t.TempDir()
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Renew, r.Pause, r.TimeLimit = "real", store, "200ms,1s", "none", "0", "3s"
	spec, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), spec, Options{Report: reports.Write})
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
	for _, name := range []string{TableMDFile, TableCSVFile, ViolationsFile, AvailabilityFile, IndexFile} {
		if st, err := os.Stat(filepath.Join(res.Dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(res.Dir, IndexFile))
	for _, c := range res.Cells {
		link := reportLink(c.Dir)
		if !strings.Contains(string(page), `href="`+link+`"`) {
			t.Errorf("index.html does not link %s", link)
		}
		if _, err := os.Stat(filepath.Join(res.Dir, filepath.FromSlash(link))); err != nil {
			t.Errorf("cell report: %v", err)
		}
	}
}

// A real short comparison: without fencing the paused holder's delayed
// write loses updates; with fencing it is rejected and nothing is lost.
func TestRealCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	store := t.TempDir()
	spec := CompareSpec{TTL: 300 * time.Millisecond, TimeLimit: 5 * time.Second, Store: store}
	cmp, err := Compare(context.Background(), spec, CompareOptions{Report: reports.Write})
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
	page, err := os.ReadFile(filepath.Join(cmp.Dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<img src="data:image/png;base64,`); n != 4 {
		t.Errorf("page embeds %d plots, want both runs' holders and fencing plots", n)
	}
	for _, s := range []Side{cmp.Unfenced, cmp.Fenced} {
		if !strings.Contains(string(page), reportLink(s.Dir)) {
			t.Errorf("page does not link %s", s.Dir)
		}
	}
}
