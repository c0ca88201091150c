package local

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

// A node whose port is taken reports errPortInUse (the signal to retry on
// another port) rather than hanging or talking to the port's owner.
func TestNodePortInUse(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	n := &node{name: "n1", bin: bin, dir: t.TempDir(), persistence: cluster.PersistNone,
		port: ln.Addr().(*net.TCPAddr).Port}
	err = n.start(context.Background())
	defer n.kill()
	if !errors.Is(err, errPortInUse) {
		t.Fatalf("start on a taken port: %v, want errPortInUse", err)
	}
	if n.pid() != 0 {
		t.Fatal("a failed start left a process")
	}
}

// Restart waits for its port to come free instead of failing at once.
func TestRestartRetriesBusyPort(t *testing.T) {
	l, err := Start(context.Background(), Config{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	ctx := context.Background()
	addr, _ := l.AdminAddr("n1")
	if err := l.Kill(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(300 * time.Millisecond); ln.Close() }()
	if err := l.Restart(ctx, "n1"); err != nil {
		t.Fatalf("restart with the port busy for 300ms: %v", err)
	}
	if l.Pid("n1") == 0 {
		t.Fatal("node down after restart")
	}
}
