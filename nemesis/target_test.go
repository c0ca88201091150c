package nemesis

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// targetOpts is a plan over every kind with 5 nodes, 3 clients and a
// resource behind the links, every fault aimed.
func targetOpts() Options {
	o := scheduleOpts()
	o.Topology.Resource = "res"
	o.TargetHolder = 1
	return o
}

// The shortest fault phase MinFaultPhase accepts holds one fault of every
// requested kind, for each kind alone and all together, for many seeds,
// with or without aim; a millisecond less is refused with ErrTooShort.
func TestScheduleEveryKindAtMinimum(t *testing.T) {
	set := New(Env{})
	cases := [][]string{Kinds, {KindPartition, KindCrash}}
	for _, k := range Kinds {
		cases = append(cases, []string{k})
	}
	for _, kinds := range cases {
		for _, aim := range []float64{0, 0.8} {
			o := scheduleOpts()
			o.Topology.Resource = "res"
			o.Kinds, o.TargetHolder = kinds, aim
			o.MinInterval, o.MaxInterval = 500*time.Millisecond, 1500*time.Millisecond
			need, err := MinFaultPhase(set, o, kinds...)
			if err != nil || need <= 0 {
				t.Fatalf("%v: MinFaultPhase = %v, %v", kinds, need, err)
			}
			o.Faults = need - time.Millisecond
			if _, err := Schedule(NewRand(1), set, o); !errors.Is(err, ErrTooShort) {
				t.Errorf("%v: phase %v (1ms below the minimum) accepted: %v", kinds, o.Faults, err)
			}
			o.Faults = need
			for seed := uint64(1); seed <= 300; seed++ {
				p, err := Schedule(NewRand(seed), set, o)
				if err != nil {
					t.Fatalf("%v seed %d: %v", kinds, seed, err)
				}
				for _, k := range kinds {
					if !p.Uses(k) {
						t.Fatalf("%v seed %d phase %v: no %s fault in %+v", kinds, seed, need, k, p.Steps)
					}
				}
				for i, s := range p.Steps {
					n, _ := set.Get(s.Fault.Kind)
					if s.At < o.WarmUp || s.end() > p.HealAt || s.Duration < 0 || s.Fault.RestartDelay < 0 {
						t.Fatalf("%v seed %d: step %d [%v, %v] outside [%v, %v]", kinds, seed, i, s.At, s.end(), o.WarmUp, p.HealAt)
					}
					if i < len(kinds) && s.busy()+s.Duration < MinStep(n, o.Topology)-time.Millisecond {
						t.Fatalf("%v seed %d: step %d %s lasts %v, below its minimum %v", kinds, seed, i, s.Fault.Kind, s.busy()+s.Duration, MinStep(n, o.Topology))
					}
				}
			}
		}
	}
}

// Kinds come in seeded rounds: the first len(Kinds) steps of a long plan
// are each kind once, and no kind runs three times before another ran.
func TestScheduleRounds(t *testing.T) {
	set := New(Env{})
	o := scheduleOpts()
	o.Faults = 5 * time.Minute
	orders := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		p, err := Schedule(NewRand(seed), set, o)
		clustertest.Must(t, err)
		var first []string
		for _, s := range p.Steps[:len(Kinds)] {
			first = append(first, s.Fault.Kind)
		}
		orders[strings.Join(first, ",")] = true
		sorted := slices.Sorted(slices.Values(first))
		if want := slices.Sorted(slices.Values(Kinds)); !slices.Equal(sorted, want) {
			t.Fatalf("seed %d: first round %v is not every kind once", seed, first)
		}
		count := map[string]int{}
		for _, s := range p.Steps {
			count[s.Fault.Kind]++
		}
		for k, n := range count {
			for k2, n2 := range count {
				if n-n2 > 1 && p.Steps[len(p.Steps)-1].Fault.Kind != k {
					t.Errorf("seed %d: %s ran %d times, %s %d", seed, k, n, k2, n2)
				}
			}
		}
	}
	if len(orders) < 10 {
		t.Errorf("only %d distinct first rounds in 20 seeds: the order is not drawn", len(orders))
	}
}

// A targeted plan is replayable: same seed, same plan, aims included; the
// share of aimed faults follows TargetHolder; 0 aims none.
func TestScheduleTargetedReplayable(t *testing.T) {
	set := New(Env{})
	o := targetOpts()
	o.TargetHolder = 0.8
	o.Faults = 5 * time.Minute
	a, err := Schedule(NewRand(7), set, o)
	clustertest.Must(t, err)
	b, _ := Schedule(NewRand(7), set, o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different targeted plans")
	}
	aimed := 0
	for _, s := range a.Steps {
		if s.Fault.Target != "" {
			aimed++
			if !strings.Contains(s.Fault.String(), " target="+s.Fault.Target) {
				t.Errorf("aimed fault's String %q does not say target=%s", s.Fault.String(), s.Fault.Target)
			}
		}
	}
	if frac := float64(aimed) / float64(len(a.Steps)); frac < 0.65 || frac > 0.95 {
		t.Errorf("%d of %d faults aimed (%.2f), want about 0.8", aimed, len(a.Steps), frac)
	}
	o.TargetHolder = -1
	c, _ := Schedule(NewRand(7), set, o)
	for _, s := range c.Steps {
		if s.Fault.Target != "" || slices.Contains(s.Fault.Clients, TargetHolder) || slices.Contains(s.Fault.Nodes, TargetLease) {
			t.Fatalf("TargetHolder -1 aimed a fault: %+v", s.Fault)
		}
	}
}

// Each kind's Aim names the placeholder and the shape the harness resolves.
func TestAimPerKind(t *testing.T) {
	set := New(Env{})
	o := targetOpts()
	top := o.Topology
	seen := map[string]map[string]bool{} // kind -> aims and shapes seen
	for seed := uint64(1); seed <= 200; seed++ {
		for _, k := range Kinds {
			n, _ := set.Get(k)
			r := NewRand(seed)
			f := n.(Targeter).Aim(r, n.Draw(r, top), top, int(seed))
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			seen[k][f.Target] = true
			seen[k][f.Shape] = true
			switch k {
			case KindClientPause, KindClientCrash, KindLatency, KindPartition:
				ph := map[string]string{AimHolder: TargetHolder, AimWaiter: TargetWaiter}[f.Target]
				want := []string{ph}
				if k == KindClientCrash && f.Target == AimHolder {
					want = append(want, TargetWaiter) // and the longest waiter
				}
				if ph == "" || !slices.Equal(f.Clients, want) || f.Links != nil {
					t.Fatalf("%s aimed %q at clients %v links %v", k, f.Target, f.Clients, f.Links)
				}
			case KindCrash, KindClockJump, KindServerPause:
				if f.Target != AimLease || !slices.Equal(f.Nodes, []string{TargetLease}) {
					t.Fatalf("%s aimed %q at nodes %v", k, f.Target, f.Nodes)
				}
			case KindFailover:
				if f.Target != AimLease || len(f.Nodes) != 1 || f.Nodes[0] != top.Nodes[0] {
					t.Fatalf("failover aimed %q at %v, want the primary", f.Target, f.Nodes)
				}
			}
			switch {
			case k == KindClientPause && f.Target == AimHolder && f.Duration <= top.TTL:
				t.Errorf("a pause of the holder lasts %v, not past its TTL", f.Duration)
			case k == KindCrash && f.RestartDelay > top.TTL/10:
				t.Errorf("an aimed crash restarts after %v, not within the lease", f.RestartDelay)
			case k == KindClockJump && f.JumpBy <= 0:
				t.Errorf("an aimed clock jump goes %v, not forward", f.JumpBy)
			case k == KindLatency && (len(f.Nodes) != len(top.Nodes) || roundTrip(f)+f.Jitter*2 >= top.nodeTimeout() || f.Delay < top.nodeTimeout()/20):
				t.Errorf("an aimed latency slows %v by %v", f.Nodes, f.Delay)
			case k == KindPartition && f.Shape == ShapeClientFromK && len(f.Nodes) != len(top.Nodes)/2+1:
				t.Errorf("an aimed partition cuts %v, not a majority", f.Nodes)
			case k == KindPartition && f.Shape == ShapeClientFromResource && !slices.Equal(f.Nodes, []string{"res"}):
				t.Errorf("a partition from the resource cuts %v", f.Nodes)
			}
		}
	}
	for _, want := range []struct{ kind, what string }{
		{KindClientPause, AimHolder}, {KindClientPause, AimWaiter},
		{KindClientCrash, AimHolder}, {KindClientCrash, AimWaiter},
		{KindPartition, ShapeClientFromK}, {KindPartition, ShapeClientFromResource}, {KindPartition, AimWaiter},
		{KindLatency, AimHolder}, {KindLatency, AimWaiter},
	} {
		if !seen[want.kind][want.what] {
			t.Errorf("%s never aimed as %s in 200 seeds", want.kind, want.what)
		}
	}
}

func TestLeaseBreakers(t *testing.T) {
	for _, c := range []struct{ granted, n, want int }{
		{1, 1, 1}, {3, 3, 2}, {2, 3, 1}, {5, 5, 3}, {4, 5, 2}, {3, 5, 1}, {7, 7, 4},
	} {
		if got := LeaseBreakers(c.granted, c.n); got != c.want {
			t.Errorf("LeaseBreakers(%d, %d) = %d, want %d", c.granted, c.n, got, c.want)
		}
	}
}

// roundTrip is what an aimed latency adds to a round trip: its delay
// each way it slows.
func roundTrip(f Fault) time.Duration {
	if f.Stream == cluster.Upstream || f.Stream == cluster.Downstream {
		return f.Delay
	}
	return 2 * f.Delay
}

// On a lock that renews by itself (Topology.Renews), aimed partitions are
// timed to a renewal part of the time, from the nodes only; on any other
// lock never.
func TestPartitionAimedAtRenewal(t *testing.T) {
	p := &Partition{}
	top := Topology{Nodes: []string{"n1"}, Clients: []string{"c1", "c2"}, TTL: time.Second, Resource: "res"}
	r := NewRand(1)
	count := func(top Topology) (renewal int) {
		for nth := 0; nth < 10; nth++ {
			f := p.Aim(r, Fault{Kind: KindPartition}, top, nth)
			if f.Target == AimRenewal {
				if !reflect.DeepEqual(f.Clients, []string{TargetRenewal}) || f.Shape != ShapeClientFromK || !reflect.DeepEqual(f.Nodes, []string{"n1"}) {
					t.Errorf("nth %d: a renewal aim %+v, want @renewal cut from the node", nth, f)
				}
				renewal++
			}
		}
		return renewal
	}
	if n := count(top); n != 0 {
		t.Errorf("a lock without a watchdog: %d of 10 partitions timed to a renewal", n)
	}
	top.Renews = true
	if n := count(top); n < 3 || n > 5 {
		t.Errorf("a watchdog lock: %d of 10 partitions timed to a renewal, want part of them", n)
	}
}
