package cluster_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/redis/go-redis/v9"
)

// A write through a client's proxy reaches the node; a cut makes that
// client's commands time out while other links keep working; a heal
// restores the same client.
func TestWriteCutHeal(t *testing.T) {
	c := clustertest.Start(t, 3, "c1", "c2")
	ctx := ctxT(t)
	const timeout = 300 * time.Millisecond
	c1n1 := dial(t, c, "c1", "n1", timeout)
	c2n1 := dial(t, c, "c2", "n1", timeout)
	c1n2 := dial(t, c, "c1", "n2", timeout)

	must(t, c1n1.Set(ctx, "k", "v1", 0).Err())
	if got, err := admin(t, c, "n1").Get(ctx, "k").Result(); err != nil || got != "v1" {
		t.Fatalf("node n1 has k=%q (%v), want v1", got, err)
	}
	if n, _ := admin(t, c, "n2").Exists(ctx, "k").Result(); n != 0 {
		t.Fatalf("k leaked to n2")
	}

	must(t, c.Cut(ctx, []cluster.Link{{Client: "c1", Target: "n1"}}))
	start := time.Now()
	err := c1n1.Set(ctx, "k", "v2", 0).Err()
	if err == nil {
		t.Fatal("SET through a cut link succeeded")
	}
	if el := time.Since(start); el > timeout+time.Second {
		t.Fatalf("cut link failed after %v, want within about the %v timeout", el, timeout)
	}
	// A fresh connection fares no better: it is accepted, then hears nothing.
	if err := dial(t, c, "c1", "n1", timeout).Ping(ctx).Err(); err == nil {
		t.Fatal("PING on a new connection through a cut link succeeded")
	}
	// Other links are untouched.
	must(t, c2n1.Set(ctx, "k2", "x", 0).Err())
	must(t, c1n2.Ping(ctx).Err())
	// The dropped SET never reached the node.
	if got, _ := admin(t, c, "n1").Get(ctx, "k").Result(); got != "v1" {
		t.Fatalf("k=%q after a dropped SET, want v1", got)
	}

	must(t, c.Heal(ctx, []cluster.Link{{Client: "c1", Target: "n1"}}))
	must(t, c.Heal(ctx, []cluster.Link{{Client: "c1", Target: "n1"}})) // idempotent
	must(t, c1n1.Set(ctx, "k", "v3", 0).Err())
	if got, _ := admin(t, c, "n1").Get(ctx, "k").Result(); got != "v3" {
		t.Fatalf("k=%q after heal, want v3", got)
	}
}

// Cutting a node from everyone (NodeLinks) isolates it from every client.
func TestCutNodeFromEveryone(t *testing.T) {
	c := clustertest.Start(t, 2, "a", "b")
	ctx := ctxT(t)
	must(t, c.Cut(ctx, cluster.NodeLinks(c, "n2")))
	for _, cl := range c.Clients() {
		if err := dial(t, c, cl, "n2", 200*time.Millisecond).Ping(ctx).Err(); err == nil {
			t.Fatalf("%s reached the isolated node", cl)
		}
		must(t, dial(t, c, cl, "n1", time.Second).Ping(ctx).Err())
	}
	if got := c.Proxies().Faulty(); len(got) != 2 {
		t.Fatalf("faulty links %v, want the 2 links to n2", got)
	}
}

// Latency on a link shows in measured round trips, per stream, and goes
// away when removed.
func TestLatency(t *testing.T) {
	c := clustertest.Start(t, 1, "c1", "c2")
	ctx := ctxT(t)
	rc := dial(t, c, "c1", "n1", 3*time.Second)
	other := dial(t, c, "c2", "n1", 3*time.Second)
	base := rtt(t, rc, 3)
	if base > 150*time.Millisecond {
		t.Fatalf("baseline round trip %v is already slow", base)
	}
	link := cluster.Links("c1", "n1")

	must(t, c.AddLatency(ctx, link, cluster.Latency{Delay: 200 * time.Millisecond, Stream: cluster.Upstream}))
	if d := rtt(t, rc, 3); d < 180*time.Millisecond || d >= time.Second {
		t.Fatalf("round trip with 200ms upstream latency = %v, want in [180ms, 1s)", d)
	}
	if d := rtt(t, other, 3); d > 150*time.Millisecond {
		t.Fatalf("another client's round trip = %v: latency leaked to its link", d)
	}

	// Both streams: the request and the reply are each delayed.
	must(t, c.AddLatency(ctx, link, cluster.Latency{Delay: 200 * time.Millisecond}))
	if d := rtt(t, rc, 3); d < 380*time.Millisecond || d >= 1200*time.Millisecond {
		t.Fatalf("round trip with 200ms latency both ways = %v, want in [380ms, 1.2s)", d)
	}

	// Jitter: every sample within delay ± jitter (plus scheduling slack).
	must(t, c.AddLatency(ctx, link, cluster.Latency{Delay: 150 * time.Millisecond, Jitter: 100 * time.Millisecond, Stream: cluster.Downstream}))
	for i := 0; i < 4; i++ {
		if d := rtt(t, rc, 1); d < 45*time.Millisecond || d >= time.Second {
			t.Fatalf("round trip with 150±100ms latency = %v", d)
		}
	}

	must(t, c.RemoveLatency(ctx, link))
	if d := rtt(t, rc, 3); d > 150*time.Millisecond {
		t.Fatalf("round trip after removing latency = %v", d)
	}
}

// Freezing a client stalls its requests and its replies without losing a
// byte; faults added and removed on a frozen link do not release held data.
func TestFreezeThaw(t *testing.T) {
	c := clustertest.Start(t, 2, "c1", "c2")
	ctx := ctxT(t)
	rc := dial(t, c, "c1", "n1", 10*time.Second)
	adm := admin(t, c, "n1")
	must(t, rc.Ping(ctx).Err()) // open the pooled connection before the freeze

	// Upstream: a large request is held in full, then delivered intact.
	big := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB
	must(t, c.Freeze(ctx, "c1"))
	must(t, c.Freeze(ctx, "c1")) // idempotent
	set := async(func() (string, error) { return rc.Set(ctx, "big", big, 0).Result() })
	stalls(t, set, 400*time.Millisecond, "SET while frozen")
	if n, _ := adm.Exists(ctx, "big").Result(); n != 0 {
		t.Fatal("the frozen SET reached the node")
	}
	// Compose with latency on the same link while frozen: adding and
	// removing another toxic must not release held bytes.
	must(t, c.AddLatency(ctx, cluster.Links("c1", "n1"), cluster.Latency{Delay: 10 * time.Millisecond}))
	must(t, c.RemoveLatency(ctx, cluster.Links("c1", "n1")))
	stalls(t, set, 200*time.Millisecond, "SET while frozen with latency added and removed")
	// Other clients are not frozen.
	must(t, dial(t, c, "c2", "n1", time.Second).Ping(ctx).Err())

	thawAt := time.Now()
	must(t, c.Thaw(ctx, "c1"))
	r := completes(t, set, 5*time.Second, "SET after thaw")
	if r.err != nil || r.val != "OK" {
		t.Fatalf("SET after thaw = %q, %v", r.val, r.err)
	}
	if r.at.Before(thawAt) {
		t.Fatal("SET completed before the thaw")
	}
	if got, _ := adm.Get(ctx, "big").Result(); got != big {
		t.Fatalf("node holds %d bytes, want the %d sent", len(got), len(big))
	}

	// Downstream: a reply produced while frozen is held, then delivered.
	pop := async(func() (string, error) {
		v, err := rc.BLPop(ctx, 5*time.Second, "q").Result()
		if err != nil {
			return "", err
		}
		return v[1], nil
	})
	time.Sleep(200 * time.Millisecond) // let BLPOP reach the server
	must(t, c.Freeze(ctx, "c1"))
	must(t, adm.RPush(ctx, "q", big).Err())
	stalls(t, pop, 400*time.Millisecond, "BLPOP reply while frozen")
	if n, _ := adm.LLen(ctx, "q").Result(); n != 0 {
		t.Fatal("BLPOP did not take the element on the server")
	}
	must(t, c.Thaw(ctx, "c1"))
	r = completes(t, pop, 5*time.Second, "BLPOP after thaw")
	if r.err != nil || r.val != big {
		t.Fatalf("BLPOP after thaw = %d bytes, %v; want the %d pushed", len(r.val), r.err, len(big))
	}
}

// A frozen client stays frozen on an upstream added during the freeze.
func TestAddUpstreamWhileFrozen(t *testing.T) {
	c := clustertest.Start(t, 1, "c1")
	ctx := ctxT(t)
	res := clustertest.Start(t, 1) // a second cluster plays the resource
	resAddr, _ := res.AdminAddr("n1")
	must(t, c.Freeze(ctx, "c1"))
	must(t, c.AddUpstream(ctx, "res", resAddr))
	rc := dial(t, c, "c1", "res", 5*time.Second)
	ping := async(func() (string, error) { return rc.Ping(ctx).Result() })
	stalls(t, ping, 300*time.Millisecond, "PING to an upstream added while frozen")
	must(t, c.Thaw(ctx, "c1"))
	if r := completes(t, ping, 5*time.Second, "PING after thaw"); r.err != nil {
		t.Fatal(r.err)
	}
	if err := c.AddUpstream(ctx, "res", resAddr); err == nil {
		t.Fatal("adding upstream res twice succeeded")
	}
}

// A command to a paused node waits until the node resumes, then succeeds.
func TestPauseResume(t *testing.T) {
	c := clustertest.Start(t, 1, "c1")
	ctx := ctxT(t)
	rc := dial(t, c, "c1", "n1", 10*time.Second)
	must(t, rc.Ping(ctx).Err())
	must(t, c.Pause(ctx, "n1"))
	must(t, c.Pause(ctx, "n1")) // idempotent
	incr := async(func() (string, error) {
		n, err := rc.Incr(ctx, "n").Result()
		return strings.Repeat("x", int(n)), err
	})
	stalls(t, incr, 400*time.Millisecond, "INCR on a paused node")
	resumeAt := time.Now()
	must(t, c.Resume(ctx, "n1"))
	r := completes(t, incr, 5*time.Second, "INCR after resume")
	if r.err != nil || r.val != "x" || r.at.Before(resumeAt) {
		t.Fatalf("INCR after resume = %q, %v", r.val, r.err)
	}
}

// Kill and restart: without persistence the node comes back empty, with
// aof-always the key survives; the node keeps its address.
func TestKillRestart(t *testing.T) {
	for _, tc := range []struct {
		p        cluster.Persistence
		survives bool
	}{{cluster.PersistNone, false}, {cluster.PersistAOFAlways, true}} {
		t.Run(string(tc.p), func(t *testing.T) {
			c := clustertest.StartWith(t, clustertest.Options{Nodes: 1, Persistence: tc.p})
			ctx := ctxT(t)
			rc := dial(t, c, "c1", "n1", time.Second)
			addr, _ := c.AdminAddr("n1")
			pid := c.Pid("n1")
			must(t, rc.Set(ctx, "k", "v", 0).Err())

			must(t, c.Kill(ctx, "n1"))
			if alive(pid) {
				t.Fatalf("pid %d still exists after Kill", pid)
			}
			if c.Pid("n1") != 0 {
				t.Fatal("Pid of a killed node is not 0")
			}
			if err := rc.Ping(ctx).Err(); err == nil {
				t.Fatal("PING to a killed node succeeded")
			}
			if err := c.Pause(ctx, "n1"); err == nil {
				t.Fatal("pausing a killed node succeeded")
			}

			must(t, c.Restart(ctx, "n1"))
			if err := c.Restart(ctx, "n1"); err == nil {
				t.Fatal("restarting a running node succeeded")
			}
			if a, _ := c.AdminAddr("n1"); a != addr {
				t.Fatalf("restarted on %s, want %s", a, addr)
			}
			if p := c.Pid("n1"); p == 0 || p == pid {
				t.Fatalf("pid after restart = %d (before %d)", p, pid)
			}
			got, err := dial(t, c, "c1", "n1", time.Second).Get(ctx, "k").Result()
			switch {
			case tc.survives && (err != nil || got != "v"):
				t.Fatalf("GET k after restart = %q, %v; want v", got, err)
			case !tc.survives && !errors.Is(err, redis.Nil):
				t.Fatalf("GET k after restart = %q, %v; want the key lost", got, err)
			}
		})
	}
}

// HealAll after a mixture of faults restores every link and node.
func TestHealAll(t *testing.T) {
	c := clustertest.Start(t, 3, "c1", "c2")
	ctx := ctxT(t)
	must(t, c.Cut(ctx, cluster.Links("c1", "n1", "n2")))
	must(t, c.AddLatency(ctx, cluster.Links("c2", "n2"), cluster.Latency{Delay: 300 * time.Millisecond}))
	must(t, c.Freeze(ctx, "c2"))
	must(t, c.Pause(ctx, "n2"))
	must(t, c.Kill(ctx, "n3"))
	// A request held by the freeze must be delivered by HealAll.
	frozen := dial(t, c, "c2", "n1", 5*time.Second)
	held := async(func() (string, error) { return frozen.Set(ctx, "held", "1", 0).Result() })
	stalls(t, held, 200*time.Millisecond, "SET from a frozen client")

	must(t, c.HealAll(ctx))
	if r := completes(t, held, 5*time.Second, "held SET after HealAll"); r.err != nil {
		t.Fatal(r.err)
	}
	if f := c.Proxies().Faulty(); len(f) != 0 {
		t.Fatalf("links still faulty after HealAll: %v", f)
	}
	for _, n := range c.Nodes() {
		if c.Pid(n) == 0 {
			t.Fatalf("node %s is down after HealAll", n)
		}
		for _, cl := range c.Clients() {
			rc := dial(t, c, cl, n, 2*time.Second)
			start := time.Now()
			must(t, rc.Ping(ctx).Err())
			if d := time.Since(start); d > 250*time.Millisecond {
				t.Fatalf("%s->%s round trip %v after HealAll: latency left", cl, n, d)
			}
		}
	}
}

// An extra upstream gets one proxy per client, and its links take faults.
func TestAddUpstream(t *testing.T) {
	c := clustertest.Start(t, 1, "c1", "c2")
	res := clustertest.Start(t, 1)
	ctx := ctxT(t)
	resAddr, _ := res.AdminAddr("n1")
	must(t, c.AddUpstream(ctx, "res", resAddr))
	must(t, dial(t, c, "c1", "res", time.Second).Set(ctx, "r", "1", 0).Err())
	if got, _ := admin(t, res, "n1").Get(ctx, "r").Result(); got != "1" {
		t.Fatalf("resource has r=%q, want 1", got)
	}
	must(t, c.Cut(ctx, cluster.Links("c1", "res")))
	if err := dial(t, c, "c1", "res", 200*time.Millisecond).Ping(ctx).Err(); err == nil {
		t.Fatal("PING through a cut upstream link succeeded")
	}
	must(t, dial(t, c, "c2", "res", time.Second).Ping(ctx).Err())
	if err := c.AddUpstream(ctx, "x", "10.1.2.3:80"); err == nil {
		t.Fatal("a non-loopback upstream was accepted")
	}
	if err := c.AddUpstream(ctx, "n1", resAddr); err == nil {
		t.Fatal("an upstream named like a node was accepted")
	}
}

// Stop kills every redis-server, removes the run directory, is idempotent,
// and makes later operations fail with ErrStopped.
func TestStopCleansUp(t *testing.T) {
	ctx := ctxT(t)
	c, err := cluster.StartLocal(ctx, cluster.LocalConfig{Nodes: 2, Clients: []string{"c1"}})
	must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	pids := []int{c.Pid("n1"), c.Pid("n2")}
	dir := c.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	addr, _ := c.Addr("c1", "n1")
	must(t, c.Pause(ctx, "n2")) // a paused node must die too
	must(t, c.Freeze(ctx, "c1"))
	must(t, c.Stop())
	must(t, c.Stop())
	for _, p := range pids {
		if p == 0 || alive(p) {
			t.Fatalf("redis-server pid %d alive after Stop", p)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("run directory %s remains after Stop (%v)", dir, err)
	}
	if err := newClient(t, addr, 200*time.Millisecond).Ping(ctx).Err(); err == nil {
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
	must(t, c.Stop())
	defer os.RemoveAll(dir)
	for _, f := range []string{"n1/redis.conf", "n1/redis.log"} {
		if _, err := os.Stat(dir + "/" + f); err != nil {
			t.Fatalf("kept directory lacks %s: %v", f, err)
		}
	}
}

// Bad input gives clear errors and starts nothing.
func TestBadInput(t *testing.T) {
	ctx := ctxT(t)
	for _, tc := range []struct {
		name string
		cfg  cluster.LocalConfig
		want string
		is   error
	}{
		{"no nodes", cluster.LocalConfig{Nodes: 0}, "at least 1", nil},
		{"bad persistence", cluster.LocalConfig{Nodes: 1, Persistence: "rdb"}, "persistence", nil},
		{"missing binary", cluster.LocalConfig{Nodes: 1, RedisServer: "/nonexistent/redis-server"}, "redis-server package", cluster.ErrNoRedis},
		{"duplicate client", cluster.LocalConfig{Nodes: 1, Clients: []string{"a", "a"}}, "duplicate client", nil},
		{"empty client", cluster.LocalConfig{Nodes: 1, Clients: []string{""}}, "invalid client", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cluster.StartLocal(ctx, tc.cfg)
			if err == nil {
				_ = c.Stop()
				t.Fatal("StartLocal succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("error %q, want it to mention %q (is %v)", err, tc.want, tc.is)
			}
		})
	}

	c := clustertest.Start(t, 1, "c1")
	checks := []struct {
		what string
		err  error
		is   error
	}{
		{"Addr unknown client", second(c.Addr("zz", "n1")), cluster.ErrUnknownClient},
		{"Addr unknown target", second(c.Addr("c1", "n9")), cluster.ErrUnknownTarget},
		{"AdminAddr unknown node", second(c.AdminAddr("n9")), cluster.ErrUnknownNode},
		{"Cut unknown target", c.Cut(ctx, cluster.Links("c1", "n1", "n9")), cluster.ErrUnknownTarget},
		{"Freeze unknown client", c.Freeze(ctx, "zz"), cluster.ErrUnknownClient},
		{"Thaw unknown client", c.Thaw(ctx, "zz"), cluster.ErrUnknownClient},
		{"Pause unknown node", c.Pause(ctx, "n9"), cluster.ErrUnknownNode},
		{"Kill unknown node", c.Kill(ctx, "n9"), cluster.ErrUnknownNode},
		{"Restart unknown node", c.Restart(ctx, "n9"), cluster.ErrUnknownNode},
	}
	for _, ch := range checks {
		if !errors.Is(ch.err, ch.is) {
			t.Errorf("%s: error %v, want %v", ch.what, ch.err, ch.is)
		}
	}
	// A bad link in a list leaves the good ones untouched.
	if f := c.Proxies().Faulty(); len(f) != 0 {
		t.Fatalf("a failed Cut changed links: %v", f)
	}
	for _, lat := range []cluster.Latency{{Delay: -time.Second}, {Delay: time.Second, Stream: "sideways"}} {
		if err := c.AddLatency(ctx, cluster.Links("c1", "n1"), lat); err == nil {
			t.Errorf("AddLatency(%+v) succeeded", lat)
		}
	}
	if c.Pid("n9") != 0 {
		t.Error("Pid of an unknown node is not 0")
	}
}

func second(_ string, err error) error { return err }

var _ = context.Background
