package nemesis

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// A paused node answers nobody, not even its admin address; a command sent
// during the pause is answered after the resume.
func TestServerPauseBlocks(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	p := &ServerPause{Env: Env{Cluster: c}}
	f := Fault{Kind: KindServerPause, Nodes: []string{"n2"}}
	slow := clustertest.Dial(t, c, "c1", "n2", 10*time.Second)
	clustertest.Must(t, slow.Ping(ctx).Err())
	clustertest.Must(t, p.Start(ctx, f))
	done := make(chan error, 1)
	go func() { done <- slow.Set(ctx, "k", "v", 0).Err() }()
	if err := set(clustertest.Admin(t, c, "n2", opTimeout), "k2"); err == nil {
		t.Error("a paused node answered its admin address")
	}
	if !reachable(t, c, "c1", "n1") {
		t.Error("n1 unreachable while n2 is paused")
	}
	blocked(t, done, 0, "SET on a paused node")
	clustertest.Must(t, p.Stop(ctx, f))
	completes(t, done, "SET on a resumed node")
}
