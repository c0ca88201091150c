package procclient_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/internal/lockstormbin"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/procclient"
	"github.com/lockstorm/lockstorm/protocol"
)

// The tests' parts: one redis-server (n1) with a proxy for each of the
// clients c1 and c2, and the lockstorm binary built from this module.
var (
	cl        *local.Cluster
	lockstorm string
	keySeq    atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	var err error
	if lockstorm, err = lockstormbin.OnPath(); err != nil {
		fmt.Fprintln(os.Stderr, "procclient tests:", err)
		return 2
	}
	defer lockstormbin.Cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: 1, Clients: []string{"c1", "c2"}})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "procclient tests: start cluster:", err)
		return 2
	}
	cl = c
	defer c.Stop()
	return m.Run()
}

// key is a fresh lock key.
func key(t testing.TB) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), keySeq.Add(1))
}

// maxValid is the longest validity a lease of ttl may have past its
// command's send time.
func maxValid(ttl time.Duration) time.Duration {
	return ttl - lease.Allowance(ttl, lease.FixedDrift, lease.DriftFactor)
}

// lockstormConfig runs `lockstorm client --lock name` as client (c1, c2)
// of the test cluster, through its proxy, with lease ttl; extra are more
// environment variables.
func lockstormConfig(t testing.TB, name, client string, ttl time.Duration, extra ...string) procclient.Config {
	t.Helper()
	addr, err := cl.Addr(client, "n1")
	if err != nil {
		t.Fatal(err)
	}
	return procclient.Config{
		Argv: []string{lockstorm, "client", "--lock", name},
		Env:  append(environ(addr, ttl), extra...),
		Name: client,
		TTL:  ttl,
	}
}

// environ is the LOCKSTORM_* environment of a client of the node at addr.
func environ(addr string, ttl time.Duration) []string {
	return []string{protocol.EnvNodes + "=" + addr, protocol.EnvSlot + "=0", protocol.EnvTTL + "=" + strconv.FormatInt(ttl.Milliseconds(), 10)}
}

// script runs a test client from testdata: sh for .sh, python3 for .py.
func script(name string, args ...string) []string {
	path := filepath.Join("testdata", name)
	if strings.HasSuffix(name, ".py") {
		return append([]string{"/usr/bin/python3", path}, args...)
	}
	return append([]string{"/bin/sh", path}, args...)
}

// logLines collects a Client's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// find is the first line containing s ("" if none).
func (l *logLines) find(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// start starts a Client, logging to the returned lines (and to the test's
// log when it fails); it is closed when the test ends.
func start(t testing.TB, cfg procclient.Config) (*procclient.Client, *logLines) {
	t.Helper()
	log := &logLines{}
	cfg.Log = log.add
	c, err := procclient.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("log of %s:\n%s", cfg.Name, log)
		}
	})
	return c, log
}

// timeout is a context that expires after d.
func timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// waitBroken waits up to 5s for c to break and returns Err.
func waitBroken(t testing.TB, c *procclient.Client) error {
	t.Helper()
	select {
	case <-c.Broken():
	case <-time.After(5 * time.Second):
		t.Fatal("client not broken after 5s")
	}
	err := c.Err()
	if !errors.Is(err, procclient.ErrBroken) {
		t.Fatalf("Err() = %v, want one wrapping ErrBroken", err)
	}
	return err
}

// gone waits up to 2s until no process pid runs (a zombie left to an init
// that does not reap counts as gone: it cannot run).
func gone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie reports whether pid is a zombie (state Z in /proc/<pid>/stat).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	j := strings.LastIndexByte(s, ')')
	return j >= 0 && j+2 < len(s) && s[j+2] == 'Z'
}

// goroutinesBack waits up to 2s until no more goroutines run than before.
func goroutinesBack(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
