package checker

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// TestCheckSourceOverflow: with segments bounded to a few dozen records,
// CheckSource leaves the segments that grow past it unchecked: the lock,
// counter and exclusion checks are Unknown (saying why) unless a checked
// segment proves a violation, never Valid, never Invalid where the whole
// check is not, also when a later record refers back into such a segment;
// Liveness and Fencing stay the whole check's.
func TestCheckSourceOverflow(t *testing.T) {
	defer func(n int) { maxSegRecords = n }(maxSegRecords)
	defer smallSegments(minSegment)()
	c := Standard(Options{Lock: NewLock(), Fencing: true})
	merges := 0
	for _, tc := range []struct {
		name   string
		inject func(g *gen) history.History
	}{
		{"valid", func(g *gen) history.History { return g.history() }},
		{"double-grant", func(g *gen) history.History { return g.injectOverlap(len(g.leases) / 2) }},
		{"stale-fence-accepted", func(g *gen) history.History {
			g.injectOp(g.leases[len(g.leases)/2].ok, history.FWrite, history.OK, "counter0", "", 1, -7)
			return g.history()
		}},
		{"release-ok-after-expiry", func(g *gen) history.History {
			l := g.leases[len(g.leases)/4]
			g.injectOp(l.relAt+2*g.ttl, history.FRelease, history.OK, l.key, "t"+fmt.Sprint(len(g.leases)/4), 0, 0)
			return g.history()
		}},
	} {
		g := newGen(5, 8, 1)
		g.run(5000, true)
		h := tc.inject(g)
		whole := c.Check(context.Background(), h)
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := history.WriteFile(path, h); err != nil {
			t.Fatal(err)
		}
		maxSegRecords, minSegment = 40, 1
		str, _, err := c.CheckSource(context.Background(), history.File(path))
		maxSegRecords, minSegment = 1_000_000, 2000
		if err != nil {
			t.Fatal(err)
		}
		if lastStream.Overflowed == 0 || lastStream.Overflowed == lastStream.Segments {
			t.Errorf("%s: %+v: want some segments unchecked, not all", tc.name, lastStream)
		}
		for i, p := range str.Results {
			w := whole.Results[i]
			switch p.Name {
			case "lock", "resource", "exclusion":
				if p.Valid == Valid || p.Valid == Invalid && w.Valid != Invalid ||
					p.Valid == Unknown && !strings.Contains(p.Error, "not checkable in bounded memory") {
					t.Errorf("%s: %s %v (%s), whole %v", tc.name, p.Name, p.Valid, p.Error, w.Valid)
				}
			default:
				if ws, ps := signature(w), signature(p); !slices.Equal(ws, ps) {
					t.Errorf("%s: %s differs\nwhole:\n%s\nstreamed:\n%s", tc.name, p.Name, join(ws), join(ps))
				}
			}
		}
		merges += lastStream.Merges
		t.Logf("%s: whole %v, streamed %v %+v", tc.name, whole.Valid, str.Valid, lastStream)
	}
	if merges == 0 {
		t.Error("no segment merged into one not buffered")
	}
}
