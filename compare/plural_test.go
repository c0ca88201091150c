package compare

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/sweep"
)

// Counts carry their noun in the right number: "1 lost update", "1 stale
// write", "0 stale writes", "? lost updates" when unknown.
func TestFindingsPluralise(t *testing.T) {
	c := &Comparison{
		Unfenced: Side{Metrics: sweep.Metrics{Verdict: checker.Invalid, LostUpdates: 1, StaleAccepted: 1}},
		Fenced:   Side{Metrics: sweep.Metrics{Verdict: checker.Valid, LostUpdates: 0, StaleRejected: 1}},
	}
	got := strings.Join(c.Findings(), "\n")
	for _, want := range []string{"invalid, 1 lost update, 1 stale write accepted", "valid, 0 lost updates, 1 stale write rejected, 0 accepted"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	c.Unfenced.Metrics = sweep.Metrics{Verdict: checker.Unknown, LostUpdates: -1, StaleAccepted: 2}
	c.Fenced.Metrics.StaleRejected = 3
	got = strings.Join(c.Findings(), "\n")
	for _, want := range []string{"unknown, ? lost updates, 2 stale writes accepted", "3 stale writes rejected"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	if w := fencingWhy(Side{Metrics: sweep.Metrics{StaleRejected: 1}}); !strings.Contains(w, "rejected 1 stale write and") {
		t.Errorf("caption: %q", w)
	}
}
