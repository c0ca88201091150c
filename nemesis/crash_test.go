package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// After a crash with persistence none the node is back, and empty.
func TestCrashRestartsEmpty(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	adm := clustertest.Admin(t, c, "n1", opTimeout)
	clustertest.Must(t, adm.Set(ctx, "lock", "tok", time.Minute).Err())
	cr := &Crash{Env: Env{Cluster: c}}
	f := Fault{Kind: KindCrash, Nodes: []string{"n1"}, RestartDelay: 200 * time.Millisecond}
	clustertest.Must(t, cr.Start(ctx, f))
	n, err := adm.DBSize(ctx).Result()
	if err != nil || n != 0 {
		t.Errorf("DBSIZE after crash = %d, %v; want 0 keys", n, err)
	}
	if err := cr.Stop(ctx, f); err != nil {
		t.Errorf("Stop after a completed crash: %v", err)
	}
	if !reachable(t, c, "c1", "n1") {
		t.Error("n1 unreachable after its restart")
	}
}

// A crash cancelled during its restart delay leaves the node down; Stop
// brings it back.
func TestCrashCancelledThenStopRestarts(t *testing.T) {
	c := startCluster(t, 3, "c1")
	cr := &Crash{Env: Env{Cluster: c}}
	f := Fault{Kind: KindCrash, Nodes: []string{"n2"}, RestartDelay: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := cr.Start(ctx, f); err == nil {
		t.Fatal("Start returned nil though cancelled during the restart delay")
	}
	if reachable(t, c, "c1", "n2") {
		t.Fatal("n2 reachable during its crash")
	}
	clustertest.Must(t, cr.Stop(clustertest.Context(t, 20*time.Second), f))
	if !reachable(t, c, "c1", "n2") {
		t.Error("n2 unreachable after Stop")
	}
}

// A crash aimed at a lease names several nodes: all go down together and
// all come back, empty.
func TestCrashSeveralNodes(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	for _, n := range []string{"n1", "n2"} {
		clustertest.Must(t, clustertest.Admin(t, c, n, opTimeout).Set(ctx, "lock", "tok", time.Minute).Err())
	}
	cr := &Crash{Env: Env{Cluster: c}}
	f := Fault{Kind: KindCrash, Nodes: []string{"n1", "n2"}, RestartDelay: 1500 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- cr.Start(ctx, f) }()
	time.Sleep(150 * time.Millisecond)
	for _, n := range []string{"n1", "n2"} {
		if reachable(t, c, "c1", n) {
			t.Errorf("%s reachable during the crash", n)
		}
	}
	clustertest.Must(t, <-done)
	for _, n := range []string{"n1", "n2"} {
		if k, err := clustertest.Admin(t, c, n, opTimeout).DBSize(ctx).Result(); err != nil || k != 0 {
			t.Errorf("%s: DBSIZE after crash = %d, %v; want 0 keys", n, k, err)
		}
		if !reachable(t, c, "c1", n) {
			t.Errorf("%s unreachable after its restart", n)
		}
	}
}
