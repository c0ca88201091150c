package reports

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
)

// The run report of the fenced pause, in a real browser: the pause's
// sentence is shown, above the holders chart.
func TestBrowserPauseStory(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	h, writes := fencedPauseHistory()
	res := &analysis.Result{Dir: dir, Config: config.Config{Name: "fenced-pause", Lock: "fenced", Workload: "counter", Clients: 2, Fencing: true, Seed: 1},
		History: history.Slice(h), Writes: writes, Final: map[string]int64{"lockstorm": 1}}
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	mustWrite(t, res)
	page := filepath.Join(dir, store.IndexFile)
	dom := browsertest.DOM(t, page)
	story := strings.Index(dom, "c1 paused at 1.00 s (until 2.01 s) → its lease ended 1.45 s → c2 acquired 1.52 s (fence 56) → c1's write arrived 2.01 s (sent 1.10 s): rejected (fence 55 &lt; 56)")
	chart := strings.Index(dom, `id="holders.png"`)
	if story < 0 || chart < story {
		t.Errorf("pause sentence at %d, holders chart at %d: want the sentence above the chart", story, chart)
	}
}
