package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/redis/go-redis/v9"
)

// provider starts one kind of cluster for a test; the fault tests below
// run against every provider that supports what they exercise.
type provider struct {
	name  string
	start func(t *testing.T, o clustertest.Options) cluster.Cluster
	// process: Pause, Resume, Kill and Restart act on the node processes.
	process bool
}

var providers = []provider{
	{"local", func(t *testing.T, o clustertest.Options) cluster.Cluster { return clustertest.StartWith(t, o) }, true},
	{"docker", func(t *testing.T, o clustertest.Options) cluster.Cluster { return clustertest.StartDocker(t, o) }, true},
	{"external", func(t *testing.T, o clustertest.Options) cluster.Cluster {
		c, _ := clustertest.StartExternal(t, o)
		return c
	}, false},
}

// eachProvider runs f as a subtest per provider; with process set, only
// for providers that control node processes.
func eachProvider(t *testing.T, process bool, f func(t *testing.T, p provider)) {
	for _, p := range providers {
		if process && !p.process {
			continue
		}
		t.Run(p.name, func(t *testing.T) { f(t, p) })
	}
}

// eachCluster runs f as a subtest per provider (see eachProvider) with
// a cluster of that provider (nodes n1..nN, clients c1 and c2) and a test
// context.
func eachCluster(t *testing.T, process bool, nodes int, f func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context)) {
	eachProvider(t, process, func(t *testing.T, p provider) {
		f(t, p, p.start(t, clustertest.Options{Nodes: nodes, Clients: []string{"c1", "c2"}}), clustertest.Context(t, 20*time.Second))
	})
}

// faulty lists the links that carry a fault, whatever the provider.
func faulty(t *testing.T, c cluster.Cluster) []cluster.Link {
	t.Helper()
	p, ok := c.(interface{ Proxies() *cluster.Proxies })
	if !ok {
		t.Fatalf("%T cannot list faulty links", c)
	}
	f, err := p.Proxies().ListFaulty()
	clustertest.Must(t, err)
	return f
}

// answers reports whether a node answers PING on its admin address.
func answers(t *testing.T, c cluster.Cluster, node string) bool {
	return clustertest.Client(t, adminAddr(t, c, node), 300*time.Millisecond).Ping(clustertest.Context(t, 20*time.Second)).Err() == nil
}

func adminAddr(t *testing.T, c cluster.Cluster, node string) string {
	t.Helper()
	a, err := c.AdminAddr(node)
	clustertest.Must(t, err)
	return a
}

// A write goes through a client's proxy to its node only; a cut silences
// that one link (old and new connections) and drops what is sent on it;
// a heal restores it.
func TestProvidersCutHeal(t *testing.T) {
	eachCluster(t, false, 2, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		const timeout = 300 * time.Millisecond
		c1n1 := clustertest.Dial(t, c, "c1", "n1", timeout)
		clustertest.Must(t, c1n1.Set(ctx, "k", "v1", 0).Err())
		if got, err := clustertest.Admin(t, c, "n1", 2*time.Second).Get(ctx, "k").Result(); err != nil || got != "v1" {
			t.Fatalf("n1 has k=%q (%v), want v1", got, err)
		}
		if n, _ := clustertest.Admin(t, c, "n2", 2*time.Second).Exists(ctx, "k").Result(); n != 0 {
			t.Fatal("k leaked to n2")
		}

		link := cluster.Links("c1", "n1")
		clustertest.Must(t, c.Cut(ctx, link))
		clustertest.Must(t, c.Cut(ctx, link)) // idempotent
		if err := c1n1.Set(ctx, "k", "v2", 0).Err(); err == nil {
			t.Fatal("SET through a cut link succeeded")
		}
		if err := clustertest.Dial(t, c, "c1", "n1", timeout).Ping(ctx).Err(); err == nil {
			t.Fatal("PING on a new connection through a cut link succeeded")
		}
		clustertest.Must(t, clustertest.Dial(t, c, "c2", "n1", timeout).Ping(ctx).Err())
		clustertest.Must(t, clustertest.Dial(t, c, "c1", "n2", timeout).Ping(ctx).Err())
		if f := faulty(t, c); len(f) != 1 || f[0] != link[0] {
			t.Fatalf("faulty links %v, want %v", f, link)
		}
		if got, _ := clustertest.Admin(t, c, "n1", 2*time.Second).Get(ctx, "k").Result(); got != "v1" {
			t.Fatalf("k=%q after a dropped SET, want v1", got)
		}

		clustertest.Must(t, c.Heal(ctx, link))
		clustertest.Must(t, c.Heal(ctx, link)) // idempotent
		clustertest.Must(t, c1n1.Set(ctx, "k", "v3", 0).Err())
		if got, _ := clustertest.Admin(t, c, "n1", 2*time.Second).Get(ctx, "k").Result(); got != "v3" {
			t.Fatalf("k=%q after heal, want v3", got)
		}
		if f := faulty(t, c); len(f) != 0 {
			t.Fatalf("faulty links after heal: %v", f)
		}
	})
}

// Latency shows in measured round trips, on the chosen stream and link
// only, and goes away when removed.
func TestProvidersLatency(t *testing.T) {
	eachCluster(t, false, 1, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		rc := clustertest.Dial(t, c, "c1", "n1", 3*time.Second)
		other := clustertest.Dial(t, c, "c2", "n1", 3*time.Second)
		// A latency toxic delays every request on its link, so the
		// fastest of a few round trips shows whether a link has it,
		// however loaded the machine (one slow sample proves nothing).
		if _, d := rtt(t, rc, 5); d > 150*time.Millisecond {
			t.Fatalf("baseline: the fastest of 5 round trips took %v", d)
		}
		link := cluster.Links("c1", "n1")
		for _, tc := range []struct {
			lat      cluster.Latency
			min, max time.Duration
		}{
			{cluster.Latency{Delay: 200 * time.Millisecond, Stream: cluster.Upstream}, 180 * time.Millisecond, time.Second},
			{cluster.Latency{Delay: 200 * time.Millisecond}, 380 * time.Millisecond, 1200 * time.Millisecond},
			{cluster.Latency{Delay: 150 * time.Millisecond, Jitter: 100 * time.Millisecond, Stream: cluster.Downstream}, 45 * time.Millisecond, time.Second},
		} {
			clustertest.Must(t, c.AddLatency(ctx, link, tc.lat))
			if d, _ := rtt(t, rc, 3); d < tc.min || d >= tc.max {
				t.Fatalf("round trip with %+v = %v, want in [%v, %v)", tc.lat, d, tc.min, tc.max)
			}
			if _, d := rtt(t, other, 5); d >= tc.lat.Delay-tc.lat.Jitter {
				t.Fatalf("another client's fastest of 5 round trips = %v: latency leaked to its link", d)
			}
		}
		clustertest.Must(t, c.RemoveLatency(ctx, link))
		if _, d := rtt(t, rc, 5); d >= 50*time.Millisecond {
			t.Fatalf("fastest of 5 round trips after removing latency = %v", d)
		}
	})
}

// Freezing a client holds its requests and replies without losing a byte
// and without touching other clients; a thaw delivers everything.
func TestProvidersFreezeThaw(t *testing.T) {
	eachCluster(t, false, 1, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		rc := clustertest.Dial(t, c, "c1", "n1", 10*time.Second)
		adm := clustertest.Admin(t, c, "n1", 2*time.Second)
		clustertest.Must(t, rc.Ping(ctx).Err()) // open the pooled connection first

		big := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB
		clustertest.Must(t, c.Freeze(ctx, "c1"))
		clustertest.Must(t, c.Freeze(ctx, "c1")) // idempotent
		set := async(func() (string, error) { return rc.Set(ctx, "big", big, 0).Result() })
		stalls(t, set, 400*time.Millisecond, "SET while frozen")
		if n, _ := adm.Exists(ctx, "big").Result(); n != 0 {
			t.Fatal("the frozen SET reached the node")
		}
		clustertest.Must(t, clustertest.Dial(t, c, "c2", "n1", time.Second).Ping(ctx).Err())
		thawAt := time.Now()
		clustertest.Must(t, c.Thaw(ctx, "c1"))
		r := completes(t, set, 5*time.Second, "SET after thaw")
		if r.err != nil || r.val != "OK" || r.at.Before(thawAt) {
			t.Fatalf("SET after thaw = %q, %v (at %v, thaw at %v)", r.val, r.err, r.at, thawAt)
		}
		if got, _ := adm.Get(ctx, "big").Result(); got != big {
			t.Fatalf("node holds %d bytes, want the %d sent", len(got), len(big))
		}

		// A reply produced while frozen is held, then delivered.
		pop := async(func() (string, error) {
			v, err := rc.BLPop(ctx, 5*time.Second, "q").Result()
			if err != nil {
				return "", err
			}
			return v[1], nil
		})
		time.Sleep(200 * time.Millisecond) // let BLPOP reach the server
		clustertest.Must(t, c.Freeze(ctx, "c1"))
		clustertest.Must(t, adm.RPush(ctx, "q", big).Err())
		stalls(t, pop, 400*time.Millisecond, "BLPOP reply while frozen")
		clustertest.Must(t, c.Thaw(ctx, "c1"))
		if r := completes(t, pop, 5*time.Second, "BLPOP after thaw"); r.err != nil || r.val != big {
			t.Fatalf("BLPOP after thaw = %d bytes, %v; want the %d pushed", len(r.val), r.err, len(big))
		}
	})
}

// A command to a paused node waits until the node resumes, then succeeds.
func TestProvidersPauseResume(t *testing.T) {
	eachCluster(t, true, 1, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		rc := clustertest.Dial(t, c, "c1", "n1", 10*time.Second)
		clustertest.Must(t, rc.Ping(ctx).Err())
		clustertest.Must(t, c.Pause(ctx, "n1"))
		clustertest.Must(t, c.Pause(ctx, "n1")) // idempotent
		incr := async(func() (string, error) {
			n, err := rc.Incr(ctx, "n").Result()
			return strings.Repeat("x", int(n)), err
		})
		stalls(t, incr, 400*time.Millisecond, "INCR on a paused node")
		resumeAt := time.Now()
		clustertest.Must(t, c.Resume(ctx, "n1"))
		if r := completes(t, incr, 5*time.Second, "INCR after resume"); r.err != nil || r.val != "x" || r.at.Before(resumeAt) {
			t.Fatalf("INCR after resume = %q, %v", r.val, r.err)
		}
	})
}

// Kill and restart: the node stops answering, comes back on the same
// address, empty without persistence and with the key under aof-always.
func TestProvidersKillRestart(t *testing.T) {
	eachProvider(t, true, func(t *testing.T, p provider) {
		for _, tc := range []struct {
			p        cluster.Persistence
			survives bool
		}{{cluster.PersistNone, false}, {cluster.PersistAOFAlways, true}} {
			t.Run(string(tc.p), func(t *testing.T) {
				c := p.start(t, clustertest.Options{Nodes: 1, Persistence: tc.p})
				ctx := clustertest.Context(t, 20*time.Second)
				addr := adminAddr(t, c, "n1")
				clustertest.Must(t, clustertest.Dial(t, c, "c1", "n1", time.Second).Set(ctx, "k", "v", 0).Err())

				clustertest.Must(t, c.Kill(ctx, "n1"))
				clustertest.Must(t, c.Kill(ctx, "n1")) // idempotent
				if answers(t, c, "n1") {
					t.Fatal("a killed node answers")
				}
				if err := clustertest.Dial(t, c, "c1", "n1", 300*time.Millisecond).Ping(ctx).Err(); err == nil {
					t.Fatal("PING through the proxy to a killed node succeeded")
				}
				if err := c.Pause(ctx, "n1"); err == nil {
					t.Fatal("pausing a killed node succeeded")
				}

				clustertest.Must(t, c.Restart(ctx, "n1"))
				if err := c.Restart(ctx, "n1"); err == nil {
					t.Fatal("restarting a running node succeeded")
				}
				if a := adminAddr(t, c, "n1"); a != addr {
					t.Fatalf("restarted on %s, want %s", a, addr)
				}
				got, err := clustertest.Dial(t, c, "c1", "n1", time.Second).Get(ctx, "k").Result()
				switch {
				case tc.survives && (err != nil || got != "v"):
					t.Fatalf("GET k after restart = %q, %v; want v", got, err)
				case !tc.survives && !errors.Is(err, redis.Nil):
					t.Fatalf("GET k after restart = %q, %v; want the key lost", got, err)
				}
			})
		}
	})
}

// HealAll after a mixture of faults restores every link and node and
// delivers what a freeze held.
func TestProvidersHealAll(t *testing.T) {
	eachCluster(t, false, 3, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		clustertest.Must(t, c.Cut(ctx, cluster.Links("c1", "n1", "n2")))
		clustertest.Must(t, c.AddLatency(ctx, cluster.Links("c2", "n2"), cluster.Latency{Delay: 300 * time.Millisecond}))
		frozen := clustertest.Dial(t, c, "c2", "n1", 5*time.Second)
		clustertest.Must(t, frozen.Ping(ctx).Err())
		clustertest.Must(t, c.Freeze(ctx, "c2"))
		if p.process {
			clustertest.Must(t, c.Pause(ctx, "n2"))
			clustertest.Must(t, c.Kill(ctx, "n3"))
		}
		held := async(func() (string, error) { return frozen.Set(ctx, "held", "1", 0).Result() })
		stalls(t, held, 200*time.Millisecond, "SET from a frozen client")

		clustertest.Must(t, c.HealAll(ctx))
		if r := completes(t, held, 5*time.Second, "held SET after HealAll"); r.err != nil {
			t.Fatal(r.err)
		}
		if f := faulty(t, c); len(f) != 0 {
			t.Fatalf("links still faulty after HealAll: %v", f)
		}
		for _, n := range c.Nodes() {
			for _, cl := range c.Clients() {
				rc := clustertest.Dial(t, c, cl, n, 2*time.Second)
				start := time.Now()
				clustertest.Must(t, rc.Ping(ctx).Err())
				if d := time.Since(start); d > 250*time.Millisecond {
					t.Fatalf("%s->%s round trip %v after HealAll: latency left", cl, n, d)
				}
			}
		}
	})
}

// An extra upstream gets one proxy per client, and its links take faults.
func TestProvidersAddUpstream(t *testing.T) {
	eachCluster(t, false, 1, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		res := clustertest.Start(t, 1) // a local redis-server plays the resource
		resAddr := adminAddr(t, res, "n1")
		clustertest.Must(t, c.AddUpstream(ctx, "res", resAddr))
		clustertest.Must(t, clustertest.Dial(t, c, "c1", "res", time.Second).Set(ctx, "r", "1", 0).Err())
		if got, _ := clustertest.Admin(t, res, "n1", 2*time.Second).Get(ctx, "r").Result(); got != "1" {
			t.Fatalf("resource has r=%q, want 1", got)
		}
		clustertest.Must(t, c.Cut(ctx, cluster.Links("c1", "res")))
		if err := clustertest.Dial(t, c, "c1", "res", 200*time.Millisecond).Ping(ctx).Err(); err == nil {
			t.Fatal("PING through a cut upstream link succeeded")
		}
		clustertest.Must(t, clustertest.Dial(t, c, "c2", "res", time.Second).Ping(ctx).Err())
		for _, bad := range [][2]string{{"x", "10.1.2.3:80"}, {"n1", resAddr}, {"res", resAddr}} {
			if err := c.AddUpstream(ctx, bad[0], bad[1]); err == nil {
				t.Errorf("AddUpstream(%s, %s) succeeded", bad[0], bad[1])
			}
		}
	})
}

// Unknown names give the sentinel errors, and a bad link in a list leaves
// the good ones untouched.
func TestProvidersBadNames(t *testing.T) {
	eachCluster(t, false, 1, func(t *testing.T, p provider, c cluster.Cluster, ctx context.Context) {
		_, addrErr := c.Addr("zz", "n1")
		_, targetErr := c.Addr("c1", "n9")
		_, adminErr := c.AdminAddr("n9")
		for _, ch := range []struct {
			what string
			err  error
			is   error
		}{
			{"Addr unknown client", addrErr, cluster.ErrUnknownClient},
			{"Addr unknown target", targetErr, cluster.ErrUnknownTarget},
			{"AdminAddr unknown node", adminErr, cluster.ErrUnknownNode},
			{"Cut unknown target", c.Cut(ctx, cluster.Links("c1", "n1", "n9")), cluster.ErrUnknownTarget},
			{"Freeze unknown client", c.Freeze(ctx, "zz"), cluster.ErrUnknownClient},
			{"Thaw unknown client", c.Thaw(ctx, "zz"), cluster.ErrUnknownClient},
			{"Pause unknown node", c.Pause(ctx, "n9"), cluster.ErrUnknownNode},
			{"Kill unknown node", c.Kill(ctx, "n9"), cluster.ErrUnknownNode},
			{"Restart unknown node", c.Restart(ctx, "n9"), cluster.ErrUnknownNode},
		} {
			if !errors.Is(ch.err, ch.is) {
				t.Errorf("%s: error %v, want %v", ch.what, ch.err, ch.is)
			}
		}
		if f := faulty(t, c); len(f) != 0 {
			t.Fatalf("a failed Cut changed links: %v", f)
		}
		for _, lat := range []cluster.Latency{{Delay: -time.Second}, {Delay: time.Second, Stream: "sideways"}} {
			if err := c.AddLatency(ctx, cluster.Links("c1", "n1"), lat); err == nil {
				t.Errorf("AddLatency(%+v) succeeded", lat)
			}
		}
	})
}
