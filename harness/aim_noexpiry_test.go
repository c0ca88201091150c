package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A waiter crash of process clients is timed to the moment the lock key
// exists without an expiry: py-setnx-expire (SETNX, then PEXPIRE) is left
// with a key that never expires, and the run is invalid (lock never
// freed). One aimed crash is enough; a crash that missed the moment
// would leave a lock that recovers by its TTL.
func TestWaiterCrashTimedToKeyWithoutExpiry(t *testing.T) {
	ttl := 300 * time.Millisecond
	// A 1.5 s step: the crash may wait until half a TTL before the heal
	// (1.35 s) for the moment, which a loaded machine often loses to the
	// client's PEXPIRE (the node is asked after the clients stop); with
	// a one-TTL step it had 150 ms, two tries, and missed beside two
	// busy loops.
	p := nemesis.Scripted(4*time.Second, nemesis.Step{At: time.Second, Duration: 5 * ttl,
		Fault: nemesis.Fault{Kind: nemesis.KindClientCrash, Target: nemesis.AimWaiter, Clients: []string{nemesis.TargetWaiter}}})
	res := storetest.Run(t, Run, config.Config{Lock: "py-setnx-expire", Workload: "counter",
		Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: p.End, Seed: 5, Store: t.TempDir(), Plan: &p})
	log := logOf(t, res)
	if !strings.Contains(log, "without expiry on n1") {
		t.Fatalf("the waiter crash was not timed to the key without expiry:\n%s", log)
	}
	if res.Verdict.Valid != checker.Invalid || !strings.Contains(res.Verdict.String(), "lock-never-freed") {
		t.Fatalf("verdict %s, want invalid with lock-never-freed:\n%s", res.Verdict.Valid, res.Verdict.String())
	}
}
