package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/sweep"
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

// A process client runs as the lock under test, paused for real; one
// known to issue no tokens is refused, one nothing is known of is run.
func TestProcessClientSides(t *testing.T) {
	p := &sweep.Process{Cmd: "bin/client", Dir: "/tmp", Label: "mylib", Nodes: 1, FencesUnknown: true}
	s, err := (Spec{Process: p}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, fenced := range []bool{false, true} {
		c := s.Config(fenced)
		if c.ClientCmd != "bin/client" || c.ClientDir != "/tmp" || c.Lock != "mylib" || c.PauseModel != config.PauseProcess || c.Fencing != fenced {
			t.Errorf("side fenced=%v: %+v", fenced, c)
		}
	}
	noTokens := &sweep.Process{Cmd: "bin/client", Label: "mylib"}
	if _, err := (Spec{Process: noTokens}).WithDefaults(); err == nil || !strings.Contains(err.Error(), "issues no fencing tokens") {
		t.Errorf("a lock without tokens: %v", err)
	}
}
