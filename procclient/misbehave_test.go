package procclient_test

import (
	"errors"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/procclient"
)

// Clients that break the protocol: the acquire in flight is unknown
// (ErrBroken, not ErrNotObtained), Broken closes, Err and the log say
// why, later operations fail at once, and no process or goroutine is
// left.
func TestMisbehavingClients(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		why  string // in Err and in a log line
	}{
		// garbage.sh and silent.sh log a child of theirs: it must die too.
		{"garbage", script("garbage.sh"), "malformed line"},
		{"exits mid-op", script("exit.sh"), "exited with status 3 while 1 requests were in flight"},
		{"never answers", script("silent.sh"), "did not answer request 1 (acquire"},
		{"answers an unknown id", script("answers.py", "unknown"), "answer to unknown request id 1001"},
		{"ok acquire without a token", script("answers.py", "notoken"), "ok answer to acquire request 1 without a token"},
		{"closes stdout", script("answers.py", "closeout"), "closed its stdout but did not exit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			c, log := start(t, procclient.Config{Argv: tc.argv, Name: "c1", TTL: 500 * time.Millisecond, Grace: 300 * time.Millisecond})
			_, err := c.Acquire(timeout(t, 200*time.Millisecond), key(t))
			if !errors.Is(err, procclient.ErrBroken) || !errors.Is(err, lockimpl.ErrOutcomeUnknown) || errors.Is(err, lockimpl.ErrNotObtained) || errors.Is(err, lockimpl.ErrNotHeld) {
				t.Fatalf("acquire in flight: %v, want unknown wrapping ErrBroken", err)
			}
			brokeBecause(t, c, log, tc.why)
			c.Close()
			goroutinesBack(t, before)
		})
	}
}

// A second answer to a request breaks the client after the first answer
// settled the request.
func TestDuplicateAnswer(t *testing.T) {
	c, log := start(t, procclient.Config{Argv: script("answers.py", "duplicate"), Name: "c1"})
	if _, err := c.Acquire(timeout(t, time.Second), key(t)); !errors.Is(err, lockimpl.ErrNotObtained) {
		t.Fatalf("acquire: %v, want the first answer, fail", err)
	}
	brokeBecause(t, c, log, "duplicate answer to request 1")
}

// brokeBecause checks that c broke for why (in Err and in one log line
// naming the client and its pid), that a later operation fails at once,
// and that the process and its child, if it logged one, are gone.
func brokeBecause(t *testing.T, c *procclient.Client, log *logLines, why string) {
	t.Helper()
	err := waitBroken(t, c)
	if !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "client c1 pid "+strconv.Itoa(c.Pid())) {
		t.Errorf("Err() = %q, want it to name the client and say %q", err, why)
	}
	if line := log.find(why); !strings.HasPrefix(line, "client c1 pid "+strconv.Itoa(c.Pid())+": ") {
		t.Errorf("no log line 'client c1 pid %d: ...%s...'; log:\n%s", c.Pid(), why, log)
	}
	if _, err := c.Acquire(timeout(t, time.Second), "later"); !errors.Is(err, procclient.ErrBroken) || errors.Is(err, lockimpl.ErrNotObtained) {
		t.Errorf("acquire on a broken client: %v, want unknown wrapping ErrBroken", err)
	}
	gone(t, c.Pid())
	c.Close() // all of stderr is read once Close returns
	m := regexp.MustCompile(`stderr: child (\d+)`).FindStringSubmatch(log.String())
	if wantChild := strings.HasSuffix(why, "malformed line") || strings.Contains(why, "did not answer"); wantChild != (m != nil) {
		t.Fatalf("child logged: %v, want %v; log:\n%s", m != nil, wantChild, log)
	}
	if m != nil {
		child, _ := strconv.Atoi(m[1])
		gone(t, child)
	}
}

// A command that cannot start is an error naming it.
func TestStartError(t *testing.T) {
	_, err := procclient.Start(t.Context(), procclient.Config{Argv: []string{"/nonexistent/lockstorm-client", "--lock", "x"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/lockstorm-client") {
		t.Fatalf("Start of a missing command: %v, want an error naming it", err)
	}
	if _, err := procclient.Start(t.Context(), procclient.Config{}); err == nil {
		t.Fatal("Start without a command succeeded")
	}
}
