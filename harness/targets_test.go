package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// The smallest time limit MinTimeLimit names is accepted and its plan has
// a fault of every requested kind, for each kind alone and all together,
// across many seeds; a millisecond less is refused as bad input.
func TestMinTimeLimitHoldsEveryKind(t *testing.T) {
	cases := [][]string{standaloneKinds(), {nemesis.KindPartition, nemesis.KindCrash}}
	for _, k := range standaloneKinds() {
		cases = append(cases, []string{k})
	}
	for _, ttl := range []time.Duration{300 * time.Millisecond, time.Second} {
		for _, kinds := range cases {
			cfg, err := config.Config{Lock: "redlock", Nemesis: kinds, TTL: ttl, Store: t.TempDir()}.WithDefaults()
			clustertest.Must(t, err)
			set := newNemesisSet(nemesis.Env{})
			clients, nodes := []string{"c1", "c2", "c3", "c4"}, []string{"n1", "n2", "n3", "n4", "n5"}
			_, err = plan(cfg, set, clients, nodes) // the default 20 s
			if err != nil && len(kinds) < len(standaloneKinds()) {
				t.Fatalf("%v: 20s refused: %v", kinds, err)
			}
			_, faults, _ := phases(cfg)
			o := nemesis.Options{Topology: nemesis.Topology{Nodes: nodes, Clients: clients, TTL: ttl},
				Faults: faults, MinInterval: cfg.FaultInterval / 2, MaxInterval: cfg.FaultInterval * 3 / 2}
			least, err := MinTimeLimit(cfg, set, o, kinds...)
			clustertest.Must(t, err)
			cfg.TimeLimit = least - time.Millisecond
			if _, err := plan(cfg, set, clients, nodes); !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), least.String()) {
				t.Errorf("%v ttl %v: time limit %v (1ms below the least) gave %v; want ErrConfig naming %v", kinds, ttl, cfg.TimeLimit, err, least)
			}
			cfg.TimeLimit = least
			for seed := int64(1); seed <= 100; seed++ {
				cfg.Seed = seed
				p, err := plan(cfg, set, clients, nodes)
				if err != nil {
					t.Fatalf("%v ttl %v: the least time limit %v refused: %v", kinds, ttl, least, err)
				}
				for _, k := range kinds {
					if !p.Uses(k) {
						t.Fatalf("%v ttl %v seed %d: time limit %v planned no %s fault", kinds, ttl, seed, least, k)
					}
				}
			}
		}
	}
}

// A random client-pause aimed at the holder (--target-holder 1) pauses the
// client that holds the lock at that moment, in its critical section, right
// after it acquired; one aimed at a waiter pauses a client in acquire. The
// history is the judge: the client's own records before the fault's start.
func TestTargetedPauseHitsHolder(t *testing.T) {
	ttl := 500 * time.Millisecond
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 3, TTL: ttl,
		Nemesis: []string{nemesis.KindClientPause}, TargetHolder: 1, FaultInterval: time.Second,
		TimeLimit: 7 * time.Second, Seed: 4, Store: t.TempDir()})
	type state struct {
		process          int
		holds, waiting   bool
		acquiredAt       int64
		releaseOrLostRec bool
	}
	slots := map[string]*state{}
	holderHits, waiterHits := 0, 0
	for _, op := range recordsOf(t, res) {
		if !op.IsNemesis() {
			s := slots[op.Client]
			if s == nil || s.process != op.Process {
				if s != nil && op.Process < s.process {
					continue // a record of an older (crashed) process
				}
				s = &state{process: op.Process}
				slots[op.Client] = s
			}
			switch {
			case op.F == history.FAcquire && op.Type == history.Invoke:
				s.waiting = true
			case op.F == history.FAcquire:
				s.waiting, s.holds = false, op.Type == history.OK
				s.acquiredAt = op.Time
			case op.F == history.FRelease && op.Type == history.Invoke, op.F == history.FLost:
				s.holds = false
			}
			continue
		}
		if op.F != history.FStart || op.Type != history.Invoke || op.Fault != nemesis.KindClientPause {
			continue
		}
		if len(op.Clients) != 1 || strings.HasPrefix(op.Clients[0], "@") {
			t.Fatalf("pause record names clients %v, want one resolved client", op.Clients)
		}
		s := slots[op.Clients[0]]
		switch {
		case strings.Contains(op.Detail, "target=holder"):
			holderHits++
			if s == nil || !s.holds {
				t.Errorf("pause aimed at the holder hit %s, which does not hold the lock at %v: %+v", op.Clients[0], time.Duration(op.Time), s)
			} else if since := time.Duration(op.Time - s.acquiredAt); since > ttl {
				t.Errorf("pause aimed at the holder hit %s %v after it acquired, not right after", op.Clients[0], since)
			} else {
				t.Logf("holder %s paused %v after it acquired", op.Clients[0], since)
			}
		case strings.Contains(op.Detail, "target=waiter"):
			waiterHits++
			if s == nil || !s.waiting {
				t.Errorf("pause aimed at a waiter hit %s, which is not in acquire: %+v", op.Clients[0], s)
			}
		default:
			t.Errorf("a pause with --target-holder 1 was not aimed: %s", op.Detail)
		}
	}
	t.Logf("%d pauses aimed at the holder, %d at a waiter", holderHits, waiterHits)
	if holderHits == 0 {
		t.Fatalf("no pause aimed at the holder in the run (%d at a waiter); plan %+v", waiterHits, res.Plan)
	}
}

// A random crash aimed at the lease (--target-holder 1) kills, soon after
// a grant, enough nodes to break the holder's quorum whatever the nodes it
// did not record did (2 of 3), taken from the nodes that granted it.
func TestTargetedCrashHitsLease(t *testing.T) {
	ttl := 500 * time.Millisecond
	res := storetest.Run(t, Run, config.Config{Lock: "redlock", Nodes: 3, Clients: 3, TTL: ttl,
		Nemesis: []string{nemesis.KindCrash}, TargetHolder: 1, FaultInterval: time.Second,
		Persistence: "aof-always", TimeLimit: 6 * time.Second, Seed: 2, Store: t.TempDir()})
	type lease struct {
		nodes []string
		at    int64
	}
	held := map[string]*lease{} // client -> its lease in its critical section
	hits := 0
	for _, op := range recordsOf(t, res) {
		if !op.IsNemesis() {
			switch {
			case op.F == history.FAcquire && op.Type == history.OK:
				held[op.Client] = &lease{op.Nodes, op.Time}
			case op.F == history.FRelease && op.Type == history.Invoke, op.F == history.FLost:
				delete(held, op.Client)
			}
			continue
		}
		if op.F != history.FStart || op.Type != history.Invoke || op.Fault != nemesis.KindCrash {
			continue
		}
		if !strings.Contains(op.Detail, "target=lease") || len(op.Nodes) != 2 {
			t.Errorf("aimed crash record %q names nodes %v, want 2 nodes and target=lease", op.Detail, op.Nodes)
			continue
		}
		var l *lease
		for _, x := range held {
			if l == nil || x.at > l.at {
				l = x
			}
		}
		if l == nil {
			t.Logf("crash at %v found no holder", time.Duration(op.Time))
			continue
		}
		hits++
		for _, n := range op.Nodes {
			if !slices.Contains(l.nodes, n) {
				t.Errorf("crash of %v at %v: %s did not grant the holder's lease %v", op.Nodes, time.Duration(op.Time), n, l.nodes)
			}
		}
		if since := time.Duration(op.Time - l.at); since > ttl/2 {
			t.Errorf("crash %v after the grant, not soon after", since)
		}
	}
	if hits == 0 {
		t.Fatal("no aimed crash hit a held lease")
	}
}

// standaloneKinds are the fault kinds of independent nodes on the local
// provider: every kind but a Redis Cluster's own (config's
// TestProviderFaultKinds holds the local provider to exactly these).
func standaloneKinds() []string {
	var out []string
	for _, s := range nemesis.Specs() {
		if !slices.Contains(s.Needs, nemesis.NeedRedisCluster) {
			out = append(out, s.Kind)
		}
	}
	return out
}

// A kind known only through its registration (flush) runs end to end
// from --nemesis: the provider check passes, the plan holds it, its
// records name the flushed node as a field, and coverage counts it.
func TestFaultFlushRunsFromItsRegistration(t *testing.T) {
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 2, TTL: 500 * time.Millisecond,
		Nemesis: []string{nemesis.KindFlush}, TimeLimit: 4 * time.Second, Seed: 5, Store: t.TempDir()})
	starts := 0
	for _, op := range recordsOf(t, res) {
		if op.IsNemesis() && op.F == history.FStart && op.Type == history.OK {
			if op.Fault != nemesis.KindFlush || !slices.Equal(op.Nodes, []string{"n1"}) || !strings.Contains(op.Detail, "n1 lost") {
				t.Errorf("flush start %+v: want Nodes [n1] and the keys lost in Detail", op)
			}
			starts++
		}
	}
	c := res.Coverage.Kind(nemesis.KindFlush)
	if starts == 0 || c.Planned == 0 || c.Applied != starts {
		t.Errorf("%d flushes applied, coverage %+v", starts, c)
	}
	t.Logf("%d flushes, verdict %s, coverage %+v", starts, res.Verdict.Valid, c)
}
