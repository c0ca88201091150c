package nemesis

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

func TestClockJumpDraw(t *testing.T) {
	fwd, back := 0, 0
	for _, f := range draws(&ClockJump{}, 6, topo3("c1"), 200) {
		abs := f.JumpBy
		if abs < 0 {
			abs, back = -abs, back+1
		} else {
			fwd++
		}
		if abs < 500*time.Millisecond || abs > 2*time.Second || len(f.Nodes) != 1 {
			t.Fatalf("jump %v", f)
		}
	}
	if fwd == 0 || back == 0 || back > fwd {
		t.Errorf("%d forward, %d backward jumps; want mostly forward, some backward", fwd, back)
	}
}

// A forward jump longer than the TTL expires the lock key on that node
// only; a shorter one shortens TTLs; keys without TTL are untouched; a
// backward jump lengthens PTTL.
func TestClockJumpExpiry(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	n1, n2 := clustertest.Admin(t, c, "n1", opTimeout), clustertest.Admin(t, c, "n2", opTimeout)
	ttl := 2 * time.Second
	must := func(err error) {
		t.Helper()
		clustertest.Must(t, err)
	}
	must(n1.Set(ctx, "lock", "tok", ttl).Err())
	must(n2.Set(ctx, "lock", "tok", ttl).Err())
	must(n1.Set(ctx, "long", "v", time.Minute).Err())
	must(n1.Set(ctx, "forever", "v", 0).Err())

	cj := &ClockJump{Env: Env{Cluster: c}}
	f := Fault{Kind: KindClockJump, Nodes: []string{"n1"}, JumpBy: ttl + 500*time.Millisecond}
	must(cj.Start(ctx, f))
	must(cj.Stop(ctx, f))
	if n, _ := n1.Exists(ctx, "lock").Result(); n != 0 {
		t.Error("lock key survived a forward jump longer than its TTL")
	}
	if n, _ := n2.Exists(ctx, "lock").Result(); n != 1 {
		t.Error("lock key on n2 vanished though only n1's clock jumped")
	}
	long, err := n1.PTTL(ctx, "long").Result()
	must(err)
	if long > time.Minute-ttl-500*time.Millisecond || long < 50*time.Second {
		t.Errorf("PTTL after a 2.5s forward jump = %v, want about 57.5s", long)
	}
	if d, _ := n1.PTTL(ctx, "forever").Result(); d != -1 {
		t.Errorf("key without TTL got PTTL %v", d)
	}

	back := Fault{Kind: KindClockJump, Nodes: []string{"n1"}, JumpBy: -30 * time.Second}
	must(cj.Start(ctx, back))
	after, err := n1.PTTL(ctx, "long").Result()
	must(err)
	if after < long+29*time.Second {
		t.Errorf("PTTL %v after a 30s backward jump from %v; want it lengthened by 30s", after, long)
	}
	addr, err := c.AdminAddr("n1")
	must(err)
	moved, deleted, err := JumpClock(ctx, addr, 0)
	must(err)
	if moved != 1 || deleted != 0 {
		t.Errorf("JumpClock(0) moved %d, deleted %d; want 1, 0", moved, deleted)
	}
}
