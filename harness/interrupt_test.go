package harness

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Cancelling a run mid-fault (Ctrl-C) stops it at once, records the heal,
// and leaves no redis-server and no temp directory behind; the history
// stays well-formed and checkable.
func TestInterruptMidFaultHealsAndCleansUp(t *testing.T) {
	plan := nemesis.Scripted(time.Second,
		nemesis.Step{At: 300 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindPartition, Nodes: []string{"n1"}}, Duration: 10 * time.Second},
		nemesis.Step{At: 300 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindServerPause, Nodes: []string{"n2"}}, Duration: 10 * time.Second},
		nemesis.Step{At: 300 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{"c1"}}, Duration: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, config.Config{Lock: "redlock", Nodes: 3, Clients: 3, TTL: 300 * time.Millisecond,
		Plan: &plan, TimeLimit: 30 * time.Second, Seed: 3, Store: t.TempDir()})
	clustertest.Must(t, err)
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("interrupted run took %v to stop", took)
	}
	if !res.Interrupted {
		t.Error("result not marked interrupted")
	}
	heals := 0
	for _, op := range recordsOf(t, res) {
		if op.IsNemesis() && op.F == history.FHeal && op.Type == history.OK {
			heals++
		}
	}
	if heals == 0 {
		t.Error("no heal recorded after the interruption")
	}
	if left := clustertest.Leftovers(); left != "" {
		t.Fatalf("left behind:\n%s", left)
	}
	if _, warns, err := history.ReadFile(store.Path(res.Dir, store.HistoryFile)); err != nil || len(warns) > 0 {
		t.Fatalf("history on disk: %v %v", err, warns)
	}
}

// The same seed draws the same fault plan; another seed another one.
func TestSeedReplaysThePlan(t *testing.T) {
	cfg := config.Config{Lock: "redlock", Nemesis: standaloneKinds(), TimeLimit: time.Minute, Seed: 42}
	cfg, err := cfg.WithDefaults()
	clustertest.Must(t, err)
	set := nemesis.New(nemesis.Env{})
	clients, nodes := []string{"c1", "c2", "c3", "c4"}, []string{"n1", "n2", "n3", "n4", "n5"}
	a, err := plan(cfg, set, clients, nodes)
	clustertest.Must(t, err)
	b, _ := plan(cfg, set, clients, nodes)
	if !reflect.DeepEqual(a, b) || len(a.Steps) == 0 {
		t.Fatalf("same seed, different plans (or empty): %d vs %d steps", len(a.Steps), len(b.Steps))
	}
	cfg.Seed = 43
	c, _ := plan(cfg, set, clients, nodes)
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same plan")
	}
}

func TestBadConfigStartsNothing(t *testing.T) {
	root := t.TempDir()
	for _, c := range []config.Config{
		{Lock: "nope"}, {Workload: "nope"}, {Nemesis: []string{"meteor"}}, {Nodes: -1}, {TTL: time.Microsecond},
		{Persistence: "sometimes"}, {Provider: "cloud"}, {RenewEvery: 5 * time.Second},
	} {
		c.Store = root
		if _, err := Run(context.Background(), c); !errors.Is(err, config.ErrConfig) {
			t.Errorf("%+v: want ErrConfig, got %v", c, err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Fatalf("a bad config left %d entries in the store", len(entries))
	}
}
