// Package python runs lockstorm's Python lock clients: redis-py's own
// lock and Python ports of the seed design's locks, each a process that
// speaks the client line protocol (docs/client-protocol.md) on its
// stdin and stdout. The .py files are embedded in the binary and written
// to a private temporary directory on first use, so a lockstorm binary
// runs them from any directory; they need Debian's python3-redis
// (redis-py 4.3).
package python

import (
	"bytes"
	"context"
	"crypto/sha256"
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

// lock is what lockstorm knows of one Python lock.
type lock struct {
	about string // one line, for --help
	// multiNode: the lock spreads over nodes (Redlock): 5 nodes by
	// default, at least 3. fifo: it promises FIFO grants. fences: it
	// hands out fencing tokens.
	multiNode, fifo, fences bool
}

// locks are the Python locks by name; the names are those
// lockstorm_client.py's LOCKS maps to modules.
var locks = map[string]lock{
	"py-redispy":          {about: "redis-py's own redis.lock.Lock (SET NX PX, Lua release and extend); a watchdog only when LOCKSTORM_RENEW_MS is set"},
	"py-seed-single":      {about: "the seed's single-node lock in Python: SET NX PX, Lua compare-and-delete release, compare-and-pexpire extend"},
	"py-seed-renewable":   {about: "py-seed-single plus the seed's watchdog (every 30% of the TTL) that only logs a lost lease: the holder is never told"},
	"py-seed-redlock":     {about: "the seed's Redlock in Python: sequential SET NX PX on each node, majority wins, validity never reduced by the acquire's time", multiNode: true},
	"py-seed-fair":        {about: "the seed's FIFO lock in Python: a sorted-set queue where a waiter that dies blocks everyone behind it", fifo: true},
	"py-setnx-expire":     {about: "broken on purpose: SETNX, then PEXPIRE in a second round trip; a client that dies between them leaves a key that never expires"},
	"py-unsafe-overclaim": {about: "broken on purpose: py-seed-single whose validity counts a full TTL from the acquire's reply, however long the SET took (a slow reply over-claims)"},
	"py-seed-fencing":     {about: "the seed's fenced lock in Python: SET NX PX, then INCR of the fence counter in a second, non-atomic round trip", fences: true},
}

// Locks lists the Python lock names (py-redispy, py-seed-single, ...), sorted.
func Locks() []string {
	names := make([]string, 0, len(locks))
	for n := range locks {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Is reports whether name is one of them.
func Is(name string) bool {
	_, ok := locks[name]
	return ok
}

// Describe is a one-line description per lock, for `lockstorm run --help`;
// "" for a name that is not a Python lock.
func Describe(name string) string { return locks[name].about }

// MultiNode reports whether the named Python lock spreads over nodes
// (py-seed-redlock): 5 nodes by default, and at least 3.
func MultiNode(name string) bool { return locks[name].multiNode }

// FIFO reports whether the named Python lock promises FIFO grants.
func FIFO(name string) bool { return locks[name].fifo }

// IssuesFences reports whether the named Python lock hands out fencing
// tokens.
func IssuesFences(name string) bool { return locks[name].fences }

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

// scriptDir writes the embedded .py files, once per process, into a
// folder named after their content under the user's cache folder (else
// the temporary folder) and returns it: runs of one lockstorm version
// share it, and it never grows with the number of runs. It outlives the
// process (a client may still run when the harness exits); it holds a few
// tens of kilobytes.
var scriptDir = sync.OnceValues(func() (string, error) {
	files, err := sources.ReadDir(".")
	if err != nil {
		return "", fmt.Errorf("python: read the embedded scripts: %w", err)
	}
	h := sha256.New()
	contents := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := sources.ReadFile(f.Name())
		if err != nil {
			return "", fmt.Errorf("python: read the embedded scripts: %w", err)
		}
		contents[f.Name()] = b
		fmt.Fprintf(h, "%s\x00%d\x00", f.Name(), len(b))
		h.Write(b)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "lockstorm", fmt.Sprintf("python-%x", h.Sum(nil)[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("python: write the client scripts: %w", err)
	}
	for name, b := range contents {
		if err := writeOnce(filepath.Join(dir, name), b); err != nil {
			return "", fmt.Errorf("python: write the client scripts: %w", err)
		}
	}
	return dir, nil
})

// writeOnce writes b to path unless path already holds exactly b: through
// a temporary file and a rename, so a concurrent lockstorm never reads a
// half-written script.
func writeOnce(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
