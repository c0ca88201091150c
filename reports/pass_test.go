package reports

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// The report whose pass rode on the check (WriteFrom) is the one reading
// the file itself (Write), for a history kept whole and one in spans.
func TestReportRidingOnTheCheck(t *testing.T) {
	for _, whole := range []bool{true, false} {
		h := injectDoubleGrant(bigHistory(3000, 8, 2), 4000)
		if !whole {
			lowerWhole(t, 1000)
		}
		rode := fileResult(t, h)
		rode.Config.Workload, rode.Config.Clients = "counter", 8
		p, leases := NewPass(rode), analysis.FollowLeases(rode.Config)
		c := analysis.Checkers(rode)
		c.Also = func(o *history.Op, at history.Pos) { p.Add(o, at, leases.Add(o)) }
		v, _, err := c.CheckSource(context.Background(), rode.History)
		if err != nil {
			t.Fatal(err)
		}
		p.End(leases.Finish())
		rode.Verdict = v
		noErr(t, WriteFrom(rode, p))
		read := *rode
		read.Dir = filepath.Join(t.TempDir(), filepath.Base(rode.Dir)) // the same name: the titles say it
		noErr(t, os.Mkdir(read.Dir, 0o755))
		path := filepath.Join(read.Dir, store.HistoryFile)
		read.History = history.File(path)
		noErr(t, history.WriteFile(path, h))
		mustWrite(t, &read)
		for _, f := range []string{store.IndexFile, store.HoldersFile, store.LatencyRawFile, store.RateFile, store.FencingFile, store.PorcupineFile, store.TimelineFile} {
			if withoutFacts(storetest.Read(t, rode.Dir, f)) != withoutFacts(storetest.Read(t, read.Dir, f)) {
				t.Errorf("whole %v: %s differs between the pass that rode on the check and the report's own read", whole, f)
			}
		}
		if p.s.records != int64(len(h)) {
			t.Errorf("the pass was handed %d records of %d", p.s.records, len(h))
		}
	}
}

// withoutFacts is a page without its line of facts (the run folder, the
// time the report was written).
func withoutFacts(page string) string {
	return regexp.MustCompile(`(?m)^<div class="facts">.*$`).ReplaceAllString(page, "")
}
