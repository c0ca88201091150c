// Package python runs lockstorm's Python lock clients: redis-py's own
// lock and Python ports of the seed design's locks, each a process that
// speaks the client line protocol (docs/client-protocol.md) on its
// stdin and stdout. The .py files are embedded in the binary and written
// to a private temporary directory on first use, so a lockstorm binary
// runs them from any directory; they need Debian's python3-redis
// (redis-py 4.3).
package python

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// ErrNoPython means no python3 that imports redis-py was found.
var ErrNoPython = errors.New("python: no python3 that can `import redis` (tried /usr/bin/python3 and python3 on PATH): run `make deps` or `apt-get install python3-redis`")

// ErrUnknownLock is Command's error for a name Locks does not list.
var ErrUnknownLock = errors.New("python: unknown Python lock")

// entry is the client's entry script, among the embedded files.
const entry = "lockstorm_client.py"

//go:embed *.py
var sources embed.FS

// descriptions is the one-line description of each lock, by name; its
// keys are the names lockstorm_client.py's LOCKS maps to modules.
var descriptions = map[string]string{
	"py-redispy":        "redis-py's own redis.lock.Lock (SET NX PX, Lua release and extend); a watchdog only when LOCKSTORM_RENEW_MS is set",
	"py-seed-single":    "the seed's single-node lock in Python: SET NX PX, Lua compare-and-delete release, compare-and-pexpire extend",
	"py-seed-renewable": "py-seed-single plus the seed's watchdog (every 30% of the TTL) that only logs a lost lease: the holder is never told",
	"py-seed-redlock":   "the seed's Redlock in Python: sequential SET NX PX on each node, majority wins, validity never reduced by the acquire's time",
	"py-seed-fair":      "the seed's FIFO lock in Python: a sorted-set queue where a waiter that dies blocks everyone behind it",
	"py-seed-fencing":   "the seed's fenced lock in Python: SET NX PX, then INCR of the fence counter in a second, non-atomic round trip",
}

// Locks lists the Python lock names (py-redispy, py-seed-single, ...), sorted.
func Locks() []string {
	names := make([]string, 0, len(descriptions))
	for n := range descriptions {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Is reports whether name is one of them.
func Is(name string) bool {
	_, ok := descriptions[name]
	return ok
}

// Describe is a one-line description per lock, for `lockstorm run --help`;
// "" for a name that is not a Python lock.
func Describe(lock string) string { return descriptions[lock] }

// Command returns the argv that runs the named Python lock as a process
// client: the interpreter (the first of /usr/bin/python3, then python3
// on PATH, that can `import redis`, checked once and cached) and the
// entry script, written once per process from the embedded files into a
// private temporary directory so the binary works from any directory.
// The harness adds the LOCKSTORM_* environment. A missing interpreter
// or python3-redis is ErrNoPython; a name Locks does not list is
// ErrUnknownLock.
func Command(lock string) ([]string, error) {
	if !Is(lock) {
		return nil, fmt.Errorf("%w %q (one of %v)", ErrUnknownLock, lock, Locks())
	}
	py, err := interpreter()
	if err != nil {
		return nil, err
	}
	dir, err := scriptDir()
	if err != nil {
		return nil, err
	}
	// -B: no __pycache__ beside the scripts.
	return []string{py, "-B", filepath.Join(dir, entry), "--lock", lock}, nil
}

// importCheckTimeout bounds one `python3 -c 'import redis'`.
const importCheckTimeout = 10 * time.Second

// interpreter is the first python3 that imports redis, found once.
var interpreter = sync.OnceValues(func() (string, error) {
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil && p != candidates[0] {
		candidates = append(candidates, p)
	}
	for _, py := range candidates {
		ctx, cancel := context.WithTimeout(context.Background(), importCheckTimeout)
		err := exec.CommandContext(ctx, py, "-c", "import redis").Run()
		cancel()
		if err == nil {
			return py, nil
		}
	}
	return "", ErrNoPython
})

// scriptDir writes the embedded .py files into a fresh private directory,
// once per process, and returns it. The directory outlives the process
// (a client may still be running when the harness exits); it holds a
// few tens of kilobytes.
var scriptDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lockstorm-python-")
	if err != nil {
		return "", fmt.Errorf("python: write the client scripts: %w", err)
	}
	files, err := sources.ReadDir(".")
	if err != nil {
		return "", fmt.Errorf("python: read the embedded scripts: %w", err)
	}
	for _, f := range files {
		b, err := sources.ReadFile(f.Name())
		if err != nil {
			return "", fmt.Errorf("python: read the embedded scripts: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o600); err != nil {
			return "", fmt.Errorf("python: write the client scripts: %w", err)
		}
	}
	return dir, nil
})
