package cluster_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// helperEnv, when set to a directory, makes the test binary act as a
// harness: start a 2-node cluster there, handle signals, print
// "READY <run dir> <pid> <pid>", and wait to be signalled.
const helperEnv = "LOCKSTORM_CLUSTER_HELPER_DIR"

func signalHelper() {
	defer cluster.HandleSignals()()
	c, err := local.Start(context.Background(), local.Config{
		Nodes: 2, Dir: os.Getenv(helperEnv),
	})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	fmt.Println("READY", c.Dir(), c.Pid("n1"), c.Pid("n2"))
	time.Sleep(time.Minute)
	os.Exit(4) // not signalled in time
}

// startHelper runs the helper harness with its run directory under parent.
func startHelper(t *testing.T, parent string) (cmd *exec.Cmd, dir string, pids []int) {
	t.Helper()
	cmd = exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+parent)
	out, err := cmd.StdoutPipe()
	clustertest.Must(t, err)
	clustertest.Must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 4 || f[0] != "READY" {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	for _, s := range f[2:] {
		p, _ := strconv.Atoi(s)
		pids = append(pids, p)
	}
	return cmd, f[1], pids
}

// waitGone waits up to 3 s for the pids to disappear.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range pids {
		for alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("redis-server pid %d outlived its harness", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// SIGTERM to a harness that called HandleSignals stops its clusters and
// exits with status 143.
func TestSignalStopsClusters(t *testing.T) {
	parent := t.TempDir()
	cmd, dir, pids := startHelper(t, parent)
	clustertest.Must(t, cmd.Process.Signal(syscall.SIGTERM))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("helper exit: %v, want status 143", err)
	}
	waitGone(t, pids)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("run directory %s remains after SIGTERM (%v)", dir, err)
	}
}

// A harness killed with SIGKILL takes its redis-servers with it (parent-
// death signal); the next local.Start in the same parent directory removes
// the run directory it left.
func TestKilledHarnessLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	cmd, dir, pids := startHelper(t, parent)
	clustertest.Must(t, cmd.Process.Kill())
	_ = cmd.Wait()
	waitGone(t, pids)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("expected the killed harness to leave %s: %v", dir, err)
	}
	c, err := local.Start(clustertest.Context(t, 20*time.Second), local.Config{Nodes: 1, Dir: parent})
	clustertest.Must(t, err)
	defer c.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("stale run directory %s not removed (%v)", dir, err)
	}
	if _, err := os.Stat(c.Dir()); err != nil {
		t.Fatalf("own run directory: %v", err)
	}
}

// alive reports whether a process exists and has not exited: a zombie
// (exited, not yet reaped by whoever adopted it) counts as gone.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
