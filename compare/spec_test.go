package compare

import (
	"strings"
	"testing"
	"time"
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

// Each side's runs are named after the lock, so that comparing another
// lock keeps its own runs and `latest` in the store.
func TestRunsNamedAfterTheLock(t *testing.T) {
	s, err := (Spec{Lock: "fenced-redlock"}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := s.Config(false).Name, s.Config(true).Name; a != "compare-fenced-redlock-unfenced" || b != "compare-fenced-redlock-fenced" {
		t.Fatalf("run names %q and %q", a, b)
	}
}

// Each side's run carries its cell (lock, TTL, fencing, pause), which
// titles its report.
func TestSidesNameTheirCell(t *testing.T) {
	s, err := (Spec{Lock: "fenced-redlock", TTL: time.Second, Pause: 2 * time.Second}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := s.Config(false).Cell, s.Config(true).Cell; a != "lock fenced-redlock, ttl 1s, fencing off, pause 2s" || b != "lock fenced-redlock, ttl 1s, fencing on, pause 2s" {
		t.Fatalf("cells %q and %q", a, b)
	}
}
