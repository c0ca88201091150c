package harness

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A client crash and a client pause aimed at a release that began
// (nemesis.TargetReleaser) hit the client whose release was invoked just
// before the fault started: its latest record before the fault's start
// is that release's invoke, or its completion, at most a few
// milliseconds earlier.
func TestFaultsTimedToAReleaseThatBegan(t *testing.T) {
	ttl := 300 * time.Millisecond
	p := nemesis.Scripted(4*time.Second,
		nemesis.Step{At: time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetReleaser}}},
		nemesis.Step{At: 2 * time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetReleaser}}})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Workload: "counter",
		Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: p.End, Seed: 7, Store: t.TempDir(), Plan: &p})
	hit, h := 0, recordsOf(t, res)
	for i, op := range h {
		if !op.IsNemesis() || op.F != history.FStart || op.Type != history.Invoke {
			continue
		}
		if len(op.Clients) != 1 {
			t.Fatalf("op %d: %s hit clients %v, want one", i, op.Fault, op.Clients)
		}
		last := lastOfClient(h[:i], op.Clients[0])
		if last == nil || last.F != history.FRelease {
			t.Fatalf("op %d: %s hit %s, whose latest record before it is %+v, not a release", i, op.Fault, op.Clients[0], last)
		}
		if gap := time.Duration(op.Time - last.Time); gap > 20*time.Millisecond {
			t.Errorf("op %d: %s started %v after %s's release (op %d)", i, op.Fault, gap, op.Clients[0], last.Index)
		}
		hit++
	}
	if hit != 2 {
		t.Fatalf("%d faults started, want 2", hit)
	}
}

// lastOfClient is the latest client record of client in h (nil if none).
func lastOfClient(h []history.Op, client string) *history.Op {
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].IsNemesis() && h[i].Client == client {
			return &h[i]
		}
	}
	return nil
}

// A partition and a client pause aimed at a renewal
// (nemesis.TargetRenewal) hit a holder just after one of its lease's
// extensions returned ok: the watchdog's extend ok of that client is at
// most a few milliseconds before the fault's start.
func TestFaultsTimedToARenewal(t *testing.T) {
	ttl := 300 * time.Millisecond
	p := nemesis.Scripted(4*time.Second,
		nemesis.Step{At: time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindPartition, Shape: nemesis.ShapeClientFromK, Clients: []string{nemesis.TargetRenewal}, Nodes: []string{"n1"}}},
		nemesis.Step{At: 2500 * time.Millisecond, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetRenewal}}})
	cfg := config.Config{Lock: "renewable", Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: p.End, Seed: 7, Store: t.TempDir(), Plan: &p}
	cfg.Workloads.HoldMin, cfg.Workloads.HoldMax = ttl, 2*ttl
	res := storetest.Run(t, Run, cfg)
	hit, h := 0, recordsOf(t, res)
	for i, op := range h {
		if !op.IsNemesis() || op.F != history.FStart || op.Type != history.Invoke {
			continue
		}
		if len(op.Clients) != 1 {
			t.Fatalf("op %d: %s hit clients %v, want one", i, op.Fault, op.Clients)
		}
		var ext *history.Op
		for j := i - 1; j >= 0; j-- {
			o := h[j]
			if !o.IsNemesis() && o.Client == op.Clients[0] && o.F == history.FExtend && o.Type == history.OK {
				ext = &h[j]
				break
			}
		}
		if ext == nil {
			t.Fatalf("op %d: %s hit %s, which never extended before it", i, op.Fault, op.Clients[0])
		}
		if gap := time.Duration(op.Time - ext.Time); gap > 20*time.Millisecond {
			t.Errorf("op %d: %s started %v after %s's extend ok (op %d)", i, op.Fault, gap, op.Clients[0], ext.Index)
		}
		hit++
	}
	if hit != 2 {
		t.Fatalf("%d faults started, want 2", hit)
	}
}
