package checker

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// TestFileEqualsWhole checks the file LOCKSTORM_COMPARE_HISTORY (a real
// run's history) streamed, whole and segmented with the standard
// composition and fails unless verdicts and anomalies are identical. Skipped unless the
// variable is set.
func TestFileEqualsWhole(t *testing.T) {
	path := os.Getenv("LOCKSTORM_COMPARE_HISTORY")
	if path == "" {
		t.Skip("LOCKSTORM_COMPARE_HISTORY not set")
	}
	c := Standard(Options{Fencing: true})
	start := time.Now()
	str, _, err := c.CheckSource(context.Background(), history.File(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("streamed: %v in %s, %+v", str.Valid, time.Since(start), lastStream)
	h, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	whole := c.checkWhole(context.Background(), h)
	t.Logf("whole: %v in %s", whole.Valid, time.Since(start))
	if ws, fs := signature(whole), signature(str); !slices.Equal(ws, fs) {
		t.Errorf("streamed check differs\nwhole:\n%s\nstreamed:\n%s", join(ws), join(fs))
	}
	start = time.Now()
	seg := c.Check(context.Background(), h)
	t.Logf("segmented: %v in %s, %d segments", seg.Valid, time.Since(start), len(Segments(h, DefaultDrift, DefaultDriftFactor)))
	if ws, ss := signature(whole), signature(seg); !slices.Equal(ws, ss) {
		t.Errorf("segmented check differs\nwhole:\n%s\nsegmented:\n%s", join(ws), join(ss))
	}
	for _, p := range str.Results {
		t.Logf("  %s %v %.2fs %s", p.Name, p.Valid, p.Seconds, p.Error)
	}
}
