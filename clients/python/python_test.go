package python_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/protocol"
)

func TestLocksAreSortedAndDescribed(t *testing.T) {
	locks := python.Locks()
	want := []string{"py-redispy", "py-seed-fair", "py-seed-fencing", "py-seed-redlock", "py-seed-renewable", "py-seed-single", "py-setnx-expire", "py-unsafe-overclaim"}
	if !slices.Equal(locks, want) {
		t.Fatalf("Locks() = %v, want %v", locks, want)
	}
	for _, l := range locks {
		if !python.Is(l) || python.Describe(l) == "" || strings.Contains(python.Describe(l), "\n") {
			t.Errorf("%s: Is %v, Describe %q: want true and one line", l, python.Is(l), python.Describe(l))
		}
	}
	for _, l := range []string{"", "single", "redlock", "py-seed"} {
		if python.Is(l) || python.Describe(l) != "" {
			t.Errorf("%q is not a Python lock, but Is or Describe say it is", l)
		}
	}
}

func TestCommandRejectsUnknownLock(t *testing.T) {
	if _, err := python.Command("redlock"); !errors.Is(err, python.ErrUnknownLock) {
		t.Fatalf("Command(redlock): %v, want ErrUnknownLock", err)
	}
}

// The Go list and the Python client's own registry name the same locks,
// and the written scripts run from any directory.
func TestClientListsTheSameLocks(t *testing.T) {
	needPython(t)
	argv, err := python.Command("py-seed-single")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1], argv[2], "--list")
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v --list: %v", argv[:3], err)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, python.Locks()) {
		t.Fatalf("the client lists %v, Locks() is %v", got, python.Locks())
	}
	again, err := python.Command("py-redispy")
	if err != nil || again[0] != argv[0] || again[2] != argv[2] {
		t.Fatalf("a second Command: %v, %v: want the same interpreter and script as %v", again, err, argv)
	}
}

// An unknown lock or a bad environment: one line on stderr, exit status 2.
func TestClientRejectsBadStart(t *testing.T) {
	needPython(t)
	argv, err := python.Command("py-seed-single")
	if err != nil {
		t.Fatal(err)
	}
	good := []string{protocol.EnvNodes + "=" + node.Addr, protocol.EnvSlot + "=0", protocol.EnvTTL + "=500"}
	for _, c := range []struct {
		name string
		lock string
		env  []string
		want string // in the error line
	}{
		{"unknown lock", "py-nope", good, "py-nope"},
		{"no nodes", "py-seed-single", good[1:], protocol.EnvNodes},
		{"no ttl", "py-seed-single", good[:2], protocol.EnvTTL},
		{"bad ttl", "py-seed-single", append(good[:2:2], protocol.EnvTTL+"=0"), protocol.EnvTTL},
		{"bad slot", "py-seed-single", append(good[:1:1], protocol.EnvSlot+"=x", good[2]), protocol.EnvSlot},
		{"bad node", "py-seed-single", append(good[1:], protocol.EnvNodes+"=localhost"), protocol.EnvNodes},
		{"bad renew", "py-redispy", append(good, protocol.EnvRenew+"=-5"), protocol.EnvRenew},
		{"names", "py-seed-redlock", append(good, protocol.EnvNodeNames+"=a,b"), protocol.EnvNodeNames},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(argv[0], argv[1], argv[2], "--lock", c.lock)
			cmd.Env = c.env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want status 2", err)
			}
			line := strings.TrimSuffix(stderr.String(), "\n")
			if strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
				t.Fatalf("stderr %q: want one line naming %s", stderr.String(), c.want)
			}
		})
	}
}
