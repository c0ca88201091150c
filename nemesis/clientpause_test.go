package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

func TestClientPauseDraw(t *testing.T) {
	tp := topo3("c1", "c2")
	longer := false
	for _, f := range draws(&ClientPause{}, 4, tp, 100) {
		if len(f.Clients) != 1 || f.Duration < tp.TTL/2 || f.Duration > 3*tp.TTL {
			t.Fatalf("client pause %v: want one client and 0.5 to 3 TTLs", f)
		}
		longer = longer || f.Duration > tp.TTL
	}
	if !longer {
		t.Error("no client pause longer than the TTL in 100 draws")
	}
}

// During a client pause the client's op stalls (on every node) while
// another client works; after Stop it completes and took effect.
func TestClientPauseStallsThenCompletes(t *testing.T) {
	c := startCluster(t, 3, "c1", "c2")
	ctx := clustertest.Context(t, 20*time.Second)
	p := &ClientPause{Env: Env{Cluster: c}}
	f := Fault{Kind: KindClientPause, Clients: []string{"c1"}}
	rdb := clustertest.Dial(t, c, "c1", "n3", 10*time.Second)
	if err := rdb.Ping(ctx).Err(); err != nil { // connect before the pause
		t.Fatal(err)
	}
	clustertest.Must(t, p.Start(ctx, f))
	done := make(chan error, 1)
	go func() { done <- rdb.Set(ctx, "paused", "v", 0).Err() }()
	blocked(t, done, 400*time.Millisecond, "SET by a paused client")
	if !reachable(t, c, "c2", "n3") {
		t.Error("c2 could not reach n3 while c1 was paused")
	}
	clustertest.Must(t, p.Stop(ctx, f))
	completes(t, done, "SET by a thawed client")
	if v, err := clustertest.Admin(t, c, "n3", opTimeout).Get(context.Background(), "paused").Result(); err != nil || v != "v" {
		t.Errorf("key after thaw = %q, %v", v, err)
	}
}
