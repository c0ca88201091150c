package nemesis

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/redis/go-redis/v9"
)

func TestLatencyDraw(t *testing.T) {
	tp := topo3("c1", "c2")
	seen := map[string]bool{}
	for _, f := range draws(&Latency{}, 2, tp, 100) {
		seen[f.Shape] = true
		seen[string(f.Stream)] = true
		if f.Delay < 50*time.Millisecond || f.Delay > 500*time.Millisecond || f.Jitter > f.Delay/2 {
			t.Fatalf("delay %v ± %v out of range", f.Delay, f.Jitter)
		}
		want := map[string]int{LatencyNode: 2, LatencyLink: 1}[f.Shape]
		if len(f.Links) != want {
			t.Fatalf("%s latency with %d links", f.Shape, len(f.Links))
		}
	}
	for _, k := range []string{LatencyNode, LatencyLink, "upstream", "downstream", "both"} {
		if !seen[k] {
			t.Errorf("never drew %s", k)
		}
	}
}

// rtt times one PING on a warmed connection.
func rtt(t *testing.T, rdb *redis.Client) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t0 := time.Now()
	clustertest.Must(t, rdb.Ping(ctx).Err())
	return time.Since(t0)
}

// Latency on one link shows in that link's round trips (both directions
// add up; one stream adds once), and only that link carries a toxic.
func TestLatencyRoundTrip(t *testing.T) {
	c := startCluster(t, 3, "c1", "c2")
	ctx := clustertest.Context(t, 20*time.Second)
	addr, _ := c.Addr("c1", "n1")
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, DisableIdentity: true,
		ReadTimeout: 5 * time.Second})
	defer rdb.Close()
	rtt(t, rdb) // warm the connection
	l := &Latency{Env: Env{Cluster: c}}
	for _, tc := range []struct {
		stream cluster.Stream
		min    time.Duration
	}{{cluster.Both, 300 * time.Millisecond}, {cluster.Upstream, 150 * time.Millisecond}} {
		f := Fault{Kind: KindLatency, Shape: LatencyLink, Nodes: []string{"n1"}, Clients: []string{"c1"},
			Delay: 150 * time.Millisecond, Stream: tc.stream}
		clustertest.Must(t, l.Start(ctx, f))
		if got, want := c.Proxies().Faulty(), []cluster.Link{{Client: "c1", Target: "n1"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("faulty links %v, want %v", got, want)
		}
		if d := rtt(t, rdb); d < tc.min {
			t.Errorf("%s: round trip %v with 150ms latency, want at least %v", tc.stream, d, tc.min)
		}
		clustertest.Must(t, l.Stop(ctx, f))
		if got := c.Proxies().Faulty(); len(got) != 0 {
			t.Errorf("faulty links after Stop: %v", got)
		}
	}
}

// Aimed latency draws what each bug class needs: holders mostly upstream
// and long (a two-step release straddles the expiry), waiters mostly
// downstream (a reply's delay over-claims validity), both draw each
// direction and a long or short delay; a run's first holder aim is
// upstream and long, its first waiter aim downstream and long; a round
// trip stays below the node timeout, except, on a lock that renews by
// itself, the first holder aim and one later one in three, which time a
// renewal out.
func TestLatencyAimDirectionsAndSizes(t *testing.T) {
	for _, renews := range []bool{false, true} {
		tp := topo3("c1", "c2", "c3")
		tp.TTL, tp.NodeTimeout, tp.Renews = time.Second, 500*time.Millisecond, renews
		r := rand.New(rand.NewPCG(1, 2))
		count := map[string]int{}
		for nth := 0; nth < 400; nth++ {
			f := (&Latency{}).Aim(r, Fault{Kind: KindLatency}, tp, nth)
			who := f.Target
			if !strings.Contains(f.String(), "stream="+string(f.Stream)) || !strings.Contains(f.String(), "delay=") {
				t.Fatalf("detail %q does not say the stream and delay", f.String())
			}
			count[who+" "+string(f.Stream)]++
			if nth == 0 && (who != AimHolder || f.Stream != cluster.Upstream || f.Delay < 250*time.Millisecond) ||
				nth == 1 && (who != AimWaiter || f.Stream != cluster.Downstream || f.Delay < 200*time.Millisecond) {
				t.Fatalf("aim %d: %s %s %v, not the first aim its class needs", nth, who, f.Stream, f.Delay)
			}
			rt := roundTrip(f)
			switch {
			case rt >= tp.NodeTimeout && (!renews || who != AimHolder):
				t.Fatalf("%s aim %s %v: round trip %v not below the node timeout", who, f.Stream, f.Delay, rt)
			case rt >= tp.NodeTimeout:
				count["timeout"]++
			case f.Delay >= 200*time.Millisecond:
				count[who+" long"]++
			case f.Delay <= 150*time.Millisecond:
				count[who+" short"]++
			}
		}
		for _, k := range []string{"holder upstream", "holder downstream", "holder both", "waiter downstream", "waiter upstream", "waiter both", "holder long", "holder short", "waiter long", "waiter short"} {
			if count[k] == 0 {
				t.Errorf("renews %v: never drew %s (%v)", renews, k, count)
			}
		}
		if count["holder upstream"] < count["holder downstream"]+count["holder both"] || count["waiter downstream"] < count["waiter upstream"] {
			t.Errorf("renews %v: main streams not the most frequent: %v", renews, count)
		}
		if (count["timeout"] > 0) != renews {
			t.Errorf("renews %v: %d aims past the node timeout", renews, count["timeout"])
		}
	}
}

// On a fair lock the first waiter aim times the waiter's commands out and
// jitters them by as much as their delay, for longer than its acquire may
// wait, so that a leave can land before the join it gives up on; on other
// locks it is the over-claim's long reply delay.
func TestLatencyAimQueueWaiter(t *testing.T) {
	tp := topo3("c1", "c2", "c3")
	tp.TTL, tp.NodeTimeout, tp.AcquireTimeout = 500*time.Millisecond, 50*time.Millisecond, time.Second
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		tp.Queues = true
		f := (&Latency{}).Aim(r, Fault{Kind: KindLatency}, tp, 1)
		if f.Target != AimWaiter || f.Stream != cluster.Upstream || f.Delay < tp.NodeTimeout || f.Delay > 2*tp.NodeTimeout ||
			f.Jitter != f.Delay || f.Duration < tp.AcquireTimeout+tp.TTL/2 {
			t.Fatalf("fair lock, first waiter aim: %s", f)
		}
		tp.Queues = false
		f = (&Latency{}).Aim(r, Fault{Kind: KindLatency}, tp, 1)
		if f.Target != AimWaiter || f.Stream != cluster.Downstream || f.Delay >= tp.NodeTimeout || f.Jitter >= f.Delay/2 {
			t.Fatalf("first waiter aim: %s", f)
		}
	}
}
