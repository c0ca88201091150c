package python_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/protocol"
)

// The seed's Redlock on three redis-servers: a grant names the nodes that
// granted it and holds the token on each; with one node down a majority
// still grants.
func TestSeedRedlockMajority(t *testing.T) {
	needPython(t)
	ctx := context.Background()
	var servers []*redisServer
	var addrs []string
	for range 3 {
		s, err := startRedis(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		servers, addrs = append(servers, s), append(addrs, s.Addr)
	}
	const ttl = 1000
	names := protocol.EnvNodeNames + "=a,b,c"
	c1 := startClient(t, "py-seed-redlock", addrs, ttl, names)
	c2 := startClient(t, "py-seed-redlock", addrs, ttl, names)
	k := key(t)

	a := c1.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK || !slices.Equal(a.Nodes, []string{"a", "b", "c"}) || a.ValidityMillis <= 0 || a.ValidityMillis > ttl {
		t.Fatalf("acquire: %+v, want ok on nodes [a b c] with validity in (0, %d]", a, ttl)
	}
	for i, s := range servers {
		if v := s.C.Get(ctx, k).Val(); v != a.Token {
			t.Fatalf("node %d holds %q, want the token %q", i, v, a.Token)
		}
	}
	if b := c2.acquire(k, ttl, 200); b.Type != protocol.TypeFail {
		t.Fatalf("a second client's acquire of a held lock: %+v, want fail", b)
	}
	if r := c1.release(k, a.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}

	servers[1].Stop() // b crashes
	k2 := key(t)
	b := c2.acquire(k2, ttl, 0)
	if b.Type != protocol.TypeOK || !slices.Equal(b.Nodes, []string{"a", "c"}) {
		t.Fatalf("acquire with b down: %+v, want ok on nodes [a c]", b)
	}
	if e := c2.extend(k2, b.Token); e.Type != protocol.TypeOK {
		t.Fatalf("extend with b down: %+v, want ok (a majority)", e)
	}
	if r := c2.release(k2, b.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release with b down: %+v, want ok", r)
	}
}

// The seed's watchdog keeps a lease alive past twice its TTL, telling the
// harness of every renewal.
func TestSeedRenewableKeepsLeaseAlive(t *testing.T) {
	const ttl = 300
	c := startClient(t, "py-seed-renewable", []string{node.Addr}, ttl)
	k := key(t)
	a := c.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	time.Sleep(2*ttl*time.Millisecond + 100*time.Millisecond)
	if v := node.C.Get(context.Background(), k).Val(); v != a.Token {
		t.Fatalf("after 2×TTL the key holds %q, want the token %q (renewed)", v, a.Token)
	}
	if r := c.release(k, a.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	// Every event written before the release's answer has been read.
	if n := c.count(protocol.EventRenewed, a.Token); n < 2 {
		t.Fatalf("%d renewed events over 2×TTL, want at least 2 (every 30%% of the TTL)", n)
	}
	for _, e := range c.events {
		if e.Key != k || e.ValidityMillis <= 0 || e.ValidityMillis > ttl {
			t.Fatalf("renewed event %+v: want key %s and validity in (0, %d]", e, k, ttl)
		}
	}
}

// The seed's flaw: when a renewal fails the watchdog only logs it; the
// holder is never told (no lost event).
func TestSeedRenewableNeverTellsTheHolder(t *testing.T) {
	const ttl = 300
	c := startClient(t, "py-seed-renewable", []string{node.Addr}, ttl)
	k := key(t)
	a := c.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	node.C.Del(context.Background(), k) // the lease is gone
	for deadline := time.Now().Add(waitLine); !strings.Contains(c.stderr.String(), "lost"); {
		if time.Now().After(deadline) {
			t.Fatalf("no loss logged within %v; stderr:\n%s", waitLine, c.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Its answer comes after anything the watchdog wrote before the log.
	if r := c.release(k, a.Token); r.Type != protocol.TypeFail {
		t.Fatalf("release of the lost lease: %+v, want fail", r)
	}
	if n := c.count(protocol.EventLost, a.Token); n != 0 {
		t.Fatalf("%d lost events: the seed's watchdog is not supposed to tell the holder", n)
	}
}

// redis-py's lock with LOCKSTORM_RENEW_MS: a watchdog renews the lease
// (renewed events, alive past 2×TTL) and reports its loss (a lost event).
func TestRedisPyWatchdog(t *testing.T) {
	const ttl = 300
	c := startClient(t, "py-redispy", []string{node.Addr}, ttl, protocol.EnvRenew+"=100")
	ctx := context.Background()
	k := key(t)
	a := c.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	time.Sleep(2*ttl*time.Millisecond + 100*time.Millisecond)
	if v := node.C.Get(ctx, k).Val(); v != a.Token {
		t.Fatalf("after 2×TTL the key holds %q, want the token %q (renewed)", v, a.Token)
	}
	if _, ok := c.waitEvent(protocol.EventRenewed, a.Token, waitLine); !ok {
		t.Fatal("no renewed event")
	}
	node.C.Del(ctx, k)
	e, ok := c.waitEvent(protocol.EventLost, a.Token, waitLine)
	if !ok || e.Key != k || e.Error == "" {
		t.Fatalf("after the key was deleted: lost event %+v (%v), want one for %s with an error", e, ok, k)
	}
	if r := c.release(k, a.Token); r.Type != protocol.TypeFail {
		t.Fatalf("release of the lost lease: %+v, want fail", r)
	}
}

// Without LOCKSTORM_RENEW_MS redis-py's lock is not renewed: the key
// expires after its TTL and no event is sent.
func TestRedisPyWithoutRenewal(t *testing.T) {
	const ttl = 200
	c := startClient(t, "py-redispy", []string{node.Addr}, ttl)
	k := key(t)
	a := c.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	time.Sleep(ttl*time.Millisecond + 100*time.Millisecond)
	if n := node.C.Exists(context.Background(), k).Val(); n != 0 {
		t.Fatal("the key outlived its TTL without a watchdog")
	}
	if r := c.release(k, a.Token); r.Type != protocol.TypeFail {
		t.Fatalf("release of an expired lease: %+v, want fail", r)
	}
	if len(c.events) != 0 {
		t.Fatalf("events without a watchdog: %+v", c.events)
	}
}

// The seed's fencing tokens strictly increase across grants, whichever
// client holds the lock, and count the key's fence counter up.
func TestSeedFencingFencesIncrease(t *testing.T) {
	c1 := startClient(t, "py-seed-fencing", []string{node.Addr}, ttl)
	c2 := startClient(t, "py-seed-fencing", []string{node.Addr}, ttl)
	k := key(t)
	var last int64
	for i := range 4 {
		c := []*client{c1, c2}[i%2]
		a := c.acquire(k, ttl, 0)
		if a.Type != protocol.TypeOK || a.Fence <= last {
			t.Fatalf("grant %d: %+v, want ok with a fence above %d", i, a, last)
		}
		last = a.Fence
		if r := c.release(k, a.Token); r.Type != protocol.TypeOK {
			t.Fatalf("release %d: %+v", i, r)
		}
	}
	if n, _ := node.C.Get(context.Background(), k+":fence").Int64(); n != last {
		t.Fatalf("the fence counter %s:fence is %d, the last fence %d", k, n, last)
	}
}
