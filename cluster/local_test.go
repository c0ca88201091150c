package cluster_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// Cutting a node from everyone (NodeLinks) isolates it from every client.
func TestCutNodeFromEveryone(t *testing.T) {
	c := clustertest.Start(t, 2, "a", "b")
	ctx := clustertest.Context(t, 20*time.Second)
	clustertest.Must(t, c.Cut(ctx, cluster.NodeLinks(c, "n2")))
	for _, cl := range c.Clients() {
		if err := clustertest.Dial(t, c, cl, "n2", 200*time.Millisecond).Ping(ctx).Err(); err == nil {
			t.Fatalf("%s reached the isolated node", cl)
		}
		clustertest.Must(t, clustertest.Dial(t, c, cl, "n1", time.Second).Ping(ctx).Err())
	}
	if got := c.Proxies().Faulty(); len(got) != 2 {
		t.Fatalf("faulty links %v, want the 2 links to n2", got)
	}
}

// A frozen client stays frozen on an upstream added during the freeze.
func TestAddUpstreamWhileFrozen(t *testing.T) {
	c := clustertest.Start(t, 1, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	res := clustertest.Start(t, 1) // a second cluster plays the resource
	resAddr, _ := res.AdminAddr("n1")
	clustertest.Must(t, c.Freeze(ctx, "c1"))
	clustertest.Must(t, c.AddUpstream(ctx, "res", resAddr))
	rc := clustertest.Dial(t, c, "c1", "res", 5*time.Second)
	ping := async(func() (string, error) { return rc.Ping(ctx).Result() })
	stalls(t, ping, 300*time.Millisecond, "PING to an upstream added while frozen")
	clustertest.Must(t, c.Thaw(ctx, "c1"))
	if r := completes(t, ping, 5*time.Second, "PING after thaw"); r.err != nil {
		t.Fatal(r.err)
	}
	if err := c.AddUpstream(ctx, "res", resAddr); err == nil {
		t.Fatal("adding upstream res twice succeeded")
	}
}

// Stop kills every redis-server, removes the run directory, is idempotent,
// and makes later operations fail with ErrStopped.
func TestStopCleansUp(t *testing.T) {
	ctx := clustertest.Context(t, 20*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: 2, Clients: []string{"c1"}})
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	pids := []int{c.Pid("n1"), c.Pid("n2")}
	dir := c.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	addr, _ := c.Addr("c1", "n1")
	clustertest.Must(t, c.Pause(ctx, "n2")) // a paused node must die too
	clustertest.Must(t, c.Freeze(ctx, "c1"))
	clustertest.Must(t, c.Stop())
	clustertest.Must(t, c.Stop())
	for _, p := range pids {
		if p == 0 || alive(p) {
			t.Fatalf("redis-server pid %d alive after Stop", p)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("run directory %s remains after Stop (%v)", dir, err)
	}
	if err := clustertest.Client(t, addr, 200*time.Millisecond).Ping(ctx).Err(); err == nil {
		t.Fatal("a proxy still answers after Stop")
	}
	if err := c.Cut(ctx, cluster.Links("c1", "n1")); !errors.Is(err, cluster.ErrStopped) {
		t.Fatalf("Cut after Stop = %v, want ErrStopped", err)
	}
	if err := c.Restart(ctx, "n1"); !errors.Is(err, cluster.ErrStopped) {
		t.Fatalf("Restart after Stop = %v, want ErrStopped", err)
	}
}

// KeepDir keeps the run directory with each node's config and log.
func TestKeepDir(t *testing.T) {
	c := clustertest.StartWith(t, clustertest.Options{Nodes: 1, KeepDir: true})
	dir := c.Dir()
	clustertest.Must(t, c.Stop())
	defer os.RemoveAll(dir)
	for _, f := range []string{"n1/redis.conf", "n1/redis.log"} {
		if _, err := os.Stat(dir + "/" + f); err != nil {
			t.Fatalf("kept directory lacks %s: %v", f, err)
		}
	}
}

// Bad input gives clear errors and starts nothing.
func TestBadInput(t *testing.T) {
	ctx := clustertest.Context(t, 20*time.Second)
	for _, tc := range []struct {
		name string
		cfg  local.Config
		want string
		is   error
	}{
		{"no nodes", local.Config{Nodes: 0}, "at least 1", nil},
		{"bad persistence", local.Config{Nodes: 1, Persistence: "rdb"}, "persistence", nil},
		{"missing binary", local.Config{Nodes: 1, RedisServer: "/nonexistent/redis-server"}, "redis-server package", cluster.ErrNoRedis},
		{"duplicate client", local.Config{Nodes: 1, Clients: []string{"a", "a"}}, "duplicate client", nil},
		{"empty client", local.Config{Nodes: 1, Clients: []string{""}}, "invalid client", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := local.Start(ctx, tc.cfg)
			if err == nil {
				_ = c.Stop()
				t.Fatal("local.Start succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("error %q, want it to mention %q (is %v)", err, tc.want, tc.is)
			}
		})
	}

	// The names every provider checks are in TestProvidersBadNames.
	c := clustertest.Start(t, 1, "c1")
	if c.Pid("n9") != 0 {
		t.Error("Pid of an unknown node is not 0")
	}
}
