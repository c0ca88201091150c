package cluster_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain runs the tests, then fails the run if any redis-server child of
// this process or any run directory of this process is left behind.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		signalHelper()
		return
	}
	code := m.Run()
	if left := leftovers(); left != "" {
		fmt.Fprintln(os.Stderr, "FAIL: left behind after the tests:\n"+left)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// leftovers lists redis-server children and lockstorm-<pid>-* directories
// of this process.
func leftovers() string {
	var b strings.Builder
	for _, pid := range childRedis(os.Getpid()) {
		fmt.Fprintf(&b, "redis-server pid %d\n", pid)
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("lockstorm-%d-*", os.Getpid())))
	for _, d := range dirs {
		fmt.Fprintf(&b, "directory %s\n", d)
	}
	return b.String()
}

// childRedis lists the pids of live redis-server processes whose parent is
// ppid, from /proc.
func childRedis(ppid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < 0 {
			continue
		}
		comm := s[open+1 : end]
		f := strings.Fields(s[end+1:]) // state ppid ...
		if len(f) < 2 || !strings.HasPrefix(comm, "redis-server") {
			continue
		}
		if p, _ := strconv.Atoi(f[1]); p == ppid && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}
