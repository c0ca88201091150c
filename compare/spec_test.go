package compare

import (
	"strings"
	"testing"
)

// compare refuses a lock without fencing tokens before anything runs.
func TestSpecNeedsFencingTokens(t *testing.T) {
	for _, lock := range []string{"single", "renewable", "redlock"} {
		if _, err := (Spec{Lock: lock}).WithDefaults(); err == nil || !strings.Contains(err.Error(), "issues fencing tokens") {
			t.Errorf("compare --lock %s: %v", lock, err)
		}
	}
	for _, lock := range []string{"", "fenced", "fenced-redlock"} {
		if _, err := (Spec{Lock: lock}).WithDefaults(); err != nil {
			t.Errorf("compare --lock %q: %v", lock, err)
		}
	}
}
