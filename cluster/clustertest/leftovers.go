package clustertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Main runs a package's tests, then fails the run if any redis-server or
// redis-sentinel child of the test process, or any run directory of it,
// is left behind. Call it from TestMain: os.Exit(clustertest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if left := Leftovers(); left != "" {
		fmt.Fprintln(os.Stderr, "FAIL: left behind after the tests:\n"+left)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Leftovers lists redis-server children and lockstorm-<pid>-* directories
// of this process, one per line; empty when there are none.
func Leftovers() string {
	var b strings.Builder
	for _, pid := range ChildRedis(os.Getpid()) {
		fmt.Fprintf(&b, "redis pid %d\n", pid)
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("lockstorm-%d-*", os.Getpid())))
	for _, d := range dirs {
		fmt.Fprintf(&b, "directory %s\n", d)
	}
	return b.String()
}

// ChildRedis lists the pids of live redis-server and redis-sentinel
// processes whose parent is ppid, from /proc.
func ChildRedis(ppid int) []int {
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
		if len(f) < 2 || !strings.HasPrefix(comm, "redis-") {
			continue
		}
		if p, _ := strconv.Atoi(f[1]); p == ppid && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}
