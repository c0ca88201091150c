package reports

import (
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/config"
)

// The replay line passes --fencing only for locks that issue fencing
// tokens: for the others it changes nothing and `lockstorm run` refuses it.
func TestReplayCommandFencingOnlyWithTokens(t *testing.T) {
	for lock, want := range map[string]bool{"fenced": true, "fenced-redlock": true, "redlock": false, "renewable": false} {
		line := ReplayCommand(config.Config{Lock: lock, Fencing: true})
		if got := strings.Contains(line, "--fencing"); got != want {
			t.Errorf("%s: %q; want --fencing %v", lock, line, want)
		}
	}
}
