package checker

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
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
	for _, tc := range oracleCases(t) {
		if !slices.Contains([]string{"valid", "double-grant", "stale-fence-accepted", "release-ok-after-expiry"}, tc.name) {
			continue
		}
		g := historytest.NewGen(5, 8, 1)
		g.Run(5000, true)
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
