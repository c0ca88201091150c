package harness

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
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

// A bad configuration is refused, in one line saying what is wrong,
// before anything starts.
func TestBadConfigStartsNothing(t *testing.T) {
	root, cl := t.TempDir(), config.TopologyCluster
	for _, c := range []struct {
		cfg  config.Config
		want string
	}{
		{config.Config{Lock: "nope"}, ""}, {config.Config{Workload: "nope"}, ""}, {config.Config{Nemesis: []string{"meteor"}}, ""},
		{config.Config{Nodes: -1}, ""}, {config.Config{TTL: time.Microsecond}, ""}, {config.Config{Persistence: "sometimes"}, ""},
		{config.Config{Provider: "cloud"}, ""}, {config.Config{RenewEvery: 5 * time.Second}, ""},
		// process clients
		{config.Config{Lock: "single", PauseModel: config.PauseProcess}, ""},
		{config.Config{Lock: "single", ClientCmd: "lockstorm client 'open"}, ""},
		{config.Config{Lock: "single", PauseModel: "gc"}, ""},
		{config.Config{Lock: "single", ClientCmd: "no-such-lockstorm-client-binary"}, ""},
		// a time limit too short for one fault of each kind
		{config.Config{Lock: "single", Nemesis: []string{"partition", "crash"}, TimeLimit: 3 * time.Second},
			"too short for one fault of each of partition,crash: it needs --time-limit 4.412s or more"},
		{config.Config{Lock: "single", Nemesis: []string{"failover"}, TimeLimit: 5 * time.Second},
			"too short for a failover fault: it needs --time-limit 10s or more"},
		{config.Config{Lock: "single", Nemesis: []string{"partition", "failover"}, TimeLimit: 6 * time.Second},
			"too short for a failover fault: it needs --time-limit 10s or more (one fault of each of partition,failover: 12.223s)"},
		// locks that cannot run on a Redis Cluster
		{config.Config{Lock: "redlock", Topology: cl}, "independent Redis nodes"},
		{config.Config{Lock: "single", Nodes: 2, Topology: cl}, "at least 3"},
		{config.Config{Lock: "single", Provider: "docker", Topology: cl}, "local provider only"},
		{config.Config{Lock: "py-seed-single", Topology: cl}, "in-process Go clients"},
		{config.Config{Lock: "single", Topology: "ring"}, "--topology must be"},
	} {
		c.cfg.Store = root
		_, err := Run(context.Background(), c.cfg)
		if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want ErrConfig, one line saying %q", c.cfg, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Fatalf("a bad config left %d entries in the store", len(entries))
	}
}
