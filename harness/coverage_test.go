package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A client-pause aimed at the holder (nemesis.TargetHolder) is recorded
// as touching a holder, at the fault's start, and results.json says so.
func TestCoverageHolderPause(t *testing.T) {
	plan := nemesis.Scripted(time.Second,
		nemesis.Step{At: 800 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 300 * time.Millisecond},
		nemesis.Step{At: 1500 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, Duration: 300 * time.Millisecond})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 2, TTL: time.Second,
		Plan: &plan, TimeLimit: plan.End, Seed: 3, Store: t.TempDir()})
	if res.Coverage == nil {
		t.Fatal("no coverage for a run with faults")
	}
	c := res.Coverage.Kind(nemesis.KindClientPause)
	if c.Planned != 2 || c.Applied != 2 || c.TouchedHolder < 1 || c.HolderAtStart < 1 || c.Exercised < 1 {
		t.Fatalf("client-pause coverage %+v, want 2 planned and applied, a holder touched at start", c)
	}
	if len(res.Coverage.Gaps) != 0 {
		t.Fatalf("shortfall %v", res.Coverage.Gaps)
	}
	var rf struct {
		Coverage struct {
			Kinds []struct {
				Kind          string `json:"kind"`
				TouchedHolder int    `json:"touched_holder"`
			} `json:"kinds"`
			Windows []struct {
				Holder *struct {
					When string `json:"when"`
					Op   int64  `json:"op"`
				} `json:"holder"`
			} `json:"windows"`
		} `json:"coverage"`
	}
	b := storetest.ReadJSON(t, res.Dir, store.ResultsFile, &rf)
	if len(rf.Coverage.Kinds) != 1 || rf.Coverage.Kinds[0].TouchedHolder != c.TouchedHolder || len(rf.Coverage.Windows) != 2 {
		t.Fatalf("results.json coverage does not match: %s", b)
	}
	h := recordsOf(t, res)
	for _, w := range rf.Coverage.Windows {
		if w.Holder != nil && h[w.Holder.Op].F != "acquire" {
			t.Fatalf("holder evidence op %d is %+v, not an acquire", w.Holder.Op, h[w.Holder.Op])
		}
	}
}

// A run whose only fault touched nothing (c1 of a 1-client run paused
// from 100 ms to 400 ms, before the client starts at 700 ms) passes every
// checker, but is unknown, naming the shortfall, in the result and in
// results.json; analyze agrees. --min-coverage 0 (MinCoverage -1) lifts
// the bar: the same run is valid, the untouched window still shown.
func TestCoverageUnexercised(t *testing.T) {
	plan := nemesis.Scripted(1500*time.Millisecond,
		nemesis.Step{At: 100 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{"c1"}}, Duration: 300 * time.Millisecond})
	for _, bar := range []int{0, config.GivenMinCoverage(0)} {
		res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 1, TTL: 300 * time.Millisecond,
			ClientsStartAt: 700 * time.Millisecond, MinCoverage: bar, Plan: &plan, TimeLimit: plan.End, Seed: 4, Store: t.TempDir()})
		for _, r := range res.Verdict.Results {
			if r.Valid != checker.Valid {
				t.Fatalf("checker %s: %s, want every checker valid:\n%s", r.Name, r.Valid, res.Verdict)
			}
		}
		if bar != 0 {
			if res.Verdict.Valid != checker.Valid {
				t.Fatalf("verdict %s %q, want valid with no bar", res.Verdict.Valid, res.Verdict.Error)
			}
			if res.Coverage == nil || res.Coverage.Kind(nemesis.KindClientPause).Exercised != 0 {
				t.Fatalf("coverage %+v, want the untouched window still shown", res.Coverage)
			}
			continue
		}
		want := "the one client-pause fault never touched a lock holder or waiter (need 1; --min-coverage 0 turns this off)"
		if res.Verdict.Valid != checker.Unknown || !strings.Contains(res.Verdict.Error, want) {
			t.Fatalf("verdict %s %q, want unknown naming %q", res.Verdict.Valid, res.Verdict.Error, want)
		}
		b := storetest.Read(t, res.Dir, store.ResultsFile)
		if !strings.Contains(b, `"valid": "unknown"`) && !strings.Contains(b, `"valid":"unknown"`) || !strings.Contains(b, want) {
			t.Fatalf("results.json does not say unknown with the shortfall:\n%s", b)
		}
		got, _, err := analysis.Analyze(context.Background(), res.Dir)
		if err != nil || got.Verdict.Valid != checker.Unknown || got.Coverage == nil {
			t.Fatalf("analyze: %v %+v", err, got)
		}
	}
}
