package harness

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// checkerFailure says why r, one checker's result on h, is unknown for a
// failure of the checker (a search timeout, a panic, a cancelled check)
// rather than because h gave it nothing to judge; "" when r is not
// unknown, or is unknown for exactly that reason: the lock checker's own
// "nothing to check" result (as it reports it for a history without a
// successful acquire), on a history that indeed has no successful
// acquire. A run that never got the lock under a harsh fault proves
// nothing, but it is not a broken checker.
func checkerFailure(r checker.Result, h history.History) string {
	if r.Valid != checker.Unknown {
		return ""
	}
	empty := checker.NewLock().Check(context.Background(), nil)
	if r.Name == empty.Name && r.Error == empty.Error && !acquired(h) {
		return ""
	}
	return fmt.Sprintf("checker %s unknown: %s", r.Name, r.Error)
}

// acquired reports whether any acquire in h succeeded.
func acquired(h history.History) bool {
	return count(h, history.FAcquire, history.OK) > 0
}

// checkFaults fails t when a fault of h did not apply (a nemesis info
// record) or when no fault started at all.
func checkFaults(t *testing.T, h history.History) {
	t.Helper()
	starts := 0
	for _, op := range h {
		if op.IsNemesis() && op.Type == history.Info {
			t.Errorf("fault %s %s did not apply: %s", op.F, op.Fault, op.Error)
		}
		if op.IsNemesis() && op.F == history.FStart && op.Type == history.OK {
			starts++
		}
	}
	if starts == 0 {
		t.Error("no fault started")
	}
}

// Every workload under every fault kind, briefly, with a lock that should
// survive it (or, for failover, a lock the catalogue shows it breaking): the run completes, heals, records a well-formed history
// whose faults all applied, and no checker is unknown for a failure of
// its own (see checkerFailure). Long (about 3 minutes): skipped with -short.
func TestWorkloadFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("long matrix of workloads x faults; run without -short (make test-long)")
	}
	store := t.TempDir()
	for _, w := range []string{"counter", "cron", "api", "leader"} {
		for _, k := range standaloneKinds() {
			t.Run(w+"/"+k, func(t *testing.T) {
				lock, nodes, limit := "fenced", 1, 3*time.Second
				if k == nemesis.KindFailover {
					limit = 8 * time.Second // detection plus sentinel's promotion take ~3 s
				}
				switch k {
				case nemesis.KindPartition, nemesis.KindLatency, nemesis.KindServerPause, nemesis.KindCrash:
					lock, nodes = "redlock", 3
				}
				res := storetest.Run(t, Run, config.Config{Lock: lock, Nodes: nodes, Workload: w, Clients: 3,
					TTL: 300 * time.Millisecond, Nemesis: []string{k}, FaultInterval: 600 * time.Millisecond,
					Fencing: true, Persistence: "aof-always", TimeLimit: limit, Seed: 9, Store: store})
				h := recordsOf(t, res)
				if err := checker.Validate(h); err != nil {
					t.Fatalf("history not well-formed: %v", err)
				}
				checkFaults(t, h)
				for _, r := range res.Verdict.Results {
					if why := checkerFailure(r, h); why != "" {
						t.Error(why)
					}
				}
				t.Log(fmt.Sprintf("%s: %d records, verdict %s", res.Dir, len(h), res.Verdict.Valid))
			})
		}
	}
}

// The matrix's guard exempts exactly the lock checker's "nothing to
// check" on a history without a successful acquire, and flags every other
// unknown result: a search timeout, the same message on a history that
// has a successful acquire, and a message no checker emits.
func TestMatrixGuardExemptsOnlyNothingToCheck(t *testing.T) {
	ctx := context.Background()
	failed := history.History{
		{Index: 0, Time: 1, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k"},
		{Index: 1, Time: 2, Type: history.Fail, Process: 0, F: history.FAcquire, Key: "k"},
	}
	got := checker.NewLock().Check(ctx, failed)
	if got.Valid != checker.Unknown || got.Error == "" {
		t.Fatalf("the lock checker on a history without a successful acquire: %v %q, want unknown with a reason", got.Valid, got.Error)
	}
	if why := checkerFailure(got, failed); why != "" {
		t.Errorf("nothing to check flagged: %s", why)
	}
	granted := append(slices.Clone(failed),
		history.Op{Index: 2, Time: 3, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k"},
		history.Op{Index: 3, Time: 4, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "t"})
	for _, c := range []struct {
		r checker.Result
		h history.History
	}{
		{got, granted},
		{checker.Result{Name: got.Name, Valid: checker.Unknown, Error: "porcupine timed out after 1s"}, failed},
		{checker.Result{Name: got.Name, Valid: checker.Unknown, Error: "no successful acquire"}, failed},
		{checker.Result{Name: "resource", Valid: checker.Unknown, Error: got.Error}, failed},
	} {
		if checkerFailure(c.r, c.h) == "" {
			t.Errorf("%s unknown (%q) on a history with %d successful acquires: exempted", c.r.Name, c.r.Error, count(c.h, history.FAcquire, history.OK))
		}
	}
	if why := checkerFailure(checker.Result{Name: "lock", Valid: checker.Valid}, granted); why != "" {
		t.Errorf("a valid result flagged: %s", why)
	}
}
