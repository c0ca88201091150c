package reports

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// fencing.png takes fenced reads, rejected ones included, from the
// resource's log and from the history, and still renders.
func TestFencingPNGWithRejectedReads(t *testing.T) {
	writes := []resource.Write{
		{Time: 1e6, Key: "k", Fence: 56, Accepted: true, Read: true},
		{Time: 2e6, Key: "k", Fence: 55, Stale: true, Read: true},
		{Time: 3e6, Key: "k", Value: 1, Fence: 55, Stale: true},
		{Time: 4e6, Key: "k", Value: 1, Fence: 56, Accepted: true},
	}
	h := history.History{
		{Index: 0, Time: 0, Type: history.Invoke, Process: 0, F: history.FRead, Key: "k", Fence: 55},
		{Index: 1, Time: 2e6, Type: history.Fail, Process: 0, F: history.FRead, Key: "k", Fence: 55, Error: "stale"},
		{Index: 2, Time: 3e6, Type: history.Invoke, Process: 1, F: history.FRead, Key: "k"},
		{Index: 3, Time: 4e6, Type: history.OK, Process: 1, F: history.FRead, Key: "k"},
	}
	pts, _ := fencePoints(t, h, writes)
	if len(pts) != 4 || !pts[1].read || pts[1].accepted || pts[2].read {
		t.Fatalf("points from the log: %+v", pts)
	}
	pts, _ = fencePoints(t, h, nil)
	if len(pts) != 1 || !pts[0].read || pts[0].accepted {
		t.Fatalf("points from the history (the fenced read only): %+v", pts)
	}
	for _, w := range [][]resource.Write{writes, nil} {
		png, err := fencingPNG(t, h, w, nil, 5e6)
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Fatalf("fencing.png: %v", err)
		}
	}
}

// A stale write's point carries the highest token accepted before it and
// its send (matched from the history), and the title counts stale writes
// by the resource's answer: the fenced and the unfenced plot differ in
// their titles, not only in three markers.
func TestFencingStaleWritesCountedAndTimed(t *testing.T) {
	h, writes := fencedPauseHistory()
	pts, source := fencePoints(t, h, writes)
	if len(pts) != 2 || pts[1].fence != 55 || pts[1].highest != 56 || pts[1].send != 1100*ms || pts[1].accepted {
		t.Fatalf("points: %+v", pts)
	}
	if got := fencingTitle(pts, source); got != "Fencing tokens at the resource: 1 stale write rejected, none accepted (from the resource's log)" {
		t.Errorf("fenced title %q", got)
	}
	pts[1].accepted = true
	if got := fencingTitle(pts, source); !strings.Contains(got, "1 stale write ACCEPTED, none rejected") {
		t.Errorf("unfenced title %q", got)
	}
	if png, err := fencingPNG(t, h, writes, nil, 2100*ms); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("fencing.png: %v", err)
	}
}

// A run whose lock issues no fencing tokens is not told that no stale
// write reached the resource: its picture says fencing does not apply.
func TestFencingTitleWithoutTokens(t *testing.T) {
	none := []fencePoint{{t: 1, accepted: true}, {t: 2, accepted: true}}
	if anyToken(none, nil) {
		t.Fatal("writes without tokens counted as tokens")
	}
	if !anyToken(append(none, fencePoint{t: 3, fence: 7, accepted: true}), nil) || !anyToken(none, plotter.XYs{{X: 1, Y: 3}}) {
		t.Fatal("a token written or issued not seen")
	}
}
