package harness

import (
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Faults timed to a client event hit the client of that event, a few
// milliseconds after it: a client crash and a client pause aimed at a
// release that began (nemesis.TargetReleaser) hit the client whose latest
// record before the fault is that release's invoke or completion; a
// partition and a client pause aimed at a renewal (nemesis.TargetRenewal)
// hit a holder whose watchdog's extend just returned ok.
func TestFaultsTimedToClientEvents(t *testing.T) {
	ttl := 300 * time.Millisecond
	releaser := nemesis.Scripted(4*time.Second,
		nemesis.Step{At: time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetReleaser}}},
		nemesis.Step{At: 2 * time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetReleaser}}})
	renewal := nemesis.Scripted(4*time.Second,
		nemesis.Step{At: time.Second, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindPartition, Shape: nemesis.ShapeClientFromK, Clients: []string{nemesis.TargetRenewal}, Nodes: []string{"n1"}}},
		nemesis.Step{At: 2500 * time.Millisecond, Duration: ttl,
			Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetRenewal}}})
	for _, tc := range []struct {
		lock  string
		plan  *nemesis.Plan
		event func(h []history.Op, client string) *history.Op // the event the fault followed, nil if none
	}{
		{"single", &releaser, func(h []history.Op, client string) *history.Op {
			if last := lastOf(h, client, func(*history.Op) bool { return true }); last != nil && last.F == history.FRelease {
				return last
			}
			return nil
		}},
		{"renewable", &renewal, func(h []history.Op, client string) *history.Op {
			return lastOf(h, client, func(o *history.Op) bool { return o.F == history.FExtend && o.Type == history.OK })
		}},
	} {
		cfg := config.Config{Lock: tc.lock, Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: tc.plan.End, Seed: 7, Store: t.TempDir(), Plan: tc.plan}
		if tc.lock == "renewable" {
			cfg.Workloads.HoldMin, cfg.Workloads.HoldMax = ttl, 2*ttl
		}
		hit, h := 0, recordsOf(t, storetest.Run(t, Run, cfg))
		for i, op := range h {
			if !op.IsNemesis() || op.F != history.FStart || op.Type != history.Invoke {
				continue
			}
			if len(op.Clients) != 1 {
				t.Fatalf("%s op %d: %s hit clients %v, want one", tc.lock, i, op.Fault, op.Clients)
			}
			ev := tc.event(h[:i], op.Clients[0])
			if ev == nil {
				t.Fatalf("%s op %d: %s hit %s, which had no such event before it", tc.lock, i, op.Fault, op.Clients[0])
			}
			if gap := time.Duration(op.Time - ev.Time); gap > 20*time.Millisecond {
				t.Errorf("%s op %d: %s started %v after %s's %s %s (op %d)", tc.lock, i, op.Fault, gap, op.Clients[0], ev.F, ev.Type, ev.Index)
			}
			hit++
		}
		if hit != 2 {
			t.Fatalf("%s: %d faults started, want 2", tc.lock, hit)
		}
	}
}

// lastOf is the latest client record of client in h that match accepts
// (nil if none).
func lastOf(h []history.Op, client string, match func(*history.Op) bool) *history.Op {
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].IsNemesis() && h[i].Client == client && match(&h[i]) {
			return &h[i]
		}
	}
	return nil
}
