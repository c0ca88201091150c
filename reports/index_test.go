package reports

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A sweep or comparison cell's report is titled with its cell, in
// <title> and heading; a run of its own is titled with its name alone.
func TestIndexTitledWithCell(t *testing.T) {
	const cell = "lock renewable, ttl 200ms, renew ttl/3, fencing off, pause 1.5s, run 2"
	for _, c := range []struct{ cell, title, heading string }{
		{cell, "<title>lockstorm: hand-built-pause · " + cell + " — invalid</title>", `<h1>hand-built-pause <span class="cell">· ` + cell + `</span></h1>`},
		{"", "<title>lockstorm: hand-built-pause — invalid</title>", "<h1>hand-built-pause</h1>"},
	} {
		dir := t.TempDir()
		res := pauseResult(dir)
		res.Config.Cell = c.cell
		mustWrite(t, res)
		if page := storetest.Read(t, dir, store.IndexFile); !strings.Contains(page, c.title) || !strings.Contains(page, c.heading) {
			t.Errorf("cell %q: index.html lacks %q or %q", c.cell, c.title, c.heading)
		}
	}
}

// Counts of one take the singular (the page's, TestWriteInvalid): a
// checker with one fatal anomaly fails in junit.xml with "1 anomaly".
func TestReportCountsPluralise(t *testing.T) {
	r := checker.Result{Name: "lock", Valid: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "overlap", Fatal: true, Text: "two holders"}}}
	tc := junitCase("lockstorm.t", r)
	if tc.Failure == nil || !strings.HasPrefix(tc.Failure.Message, "lock: invalid, 1 anomaly (first: ") {
		t.Errorf("junit failure: %+v", tc.Failure)
	}
}
