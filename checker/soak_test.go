package checker

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// TestFileEqualsWhole checks the file LOCKSTORM_COMPARE_HISTORY (a real
// run's history) whole, segmented and streamed (checkBoth) and fails
// unless verdicts and anomalies are identical. Skipped unless the
// variable is set.
func TestFileEqualsWhole(t *testing.T) {
	path := os.Getenv("LOCKSTORM_COMPARE_HISTORY")
	if path == "" {
		t.Skip("LOCKSTORM_COMPARE_HISTORY not set")
	}
	h, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	segs, whole := checkBoth(t, path, h, Options{Lock: NewLock(), Fencing: true})
	t.Logf("%v, %d segments, streamed %+v", whole.Valid, segs, streamed)
}
