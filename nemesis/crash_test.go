package nemesis

import (
	"context"
	"testing"
	"time"
)

// After a crash with persistence none the node is back, and empty.
func TestCrashRestartsEmpty(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := ctxT(t)
	adm := admin(t, c, "n1")
	if err := adm.Set(ctx, "lock", "tok", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	cr := &Crash{Env: Env{Cluster: c}}
	f := Fault{Kind: KindCrash, Nodes: []string{"n1"}, RestartDelay: 200 * time.Millisecond}
	if err := cr.Start(ctx, f); err != nil {
		t.Fatal(err)
	}
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
	if err := cr.Stop(ctxT(t), f); err != nil {
		t.Fatal(err)
	}
	if !reachable(t, c, "c1", "n2") {
		t.Error("n2 unreachable after Stop")
	}
}
