package nemesis

import (
	"github.com/lockstorm/lockstorm/cluster/clustertest"

	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

func scheduleOpts() Options {
	return Options{
		Kinds: Kinds,
		Topology: Topology{Nodes: []string{"n1", "n2", "n3", "n4", "n5"},
			Clients: []string{"c1", "c2", "c3"}, TTL: time.Second},
		WarmUp: 2 * time.Second, Faults: 60 * time.Second, Recovery: 5 * time.Second,
	}
}

func TestScheduleSameSeedSamePlan(t *testing.T) {
	set := New(Env{})
	a, err := Schedule(NewRand(42), set, scheduleOpts())
	clustertest.Must(t, err)
	b, _ := Schedule(NewRand(42), set, scheduleOpts())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different plans")
	}
	c, _ := Schedule(NewRand(43), set, scheduleOpts())
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same plan")
	}
	// The plan survives JSON (it goes into test.json).
	js, err := json.Marshal(a)
	clustertest.Must(t, err)
	var back Plan
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(a, back) {
		t.Fatalf("plan JSON round trip: %v", err)
	}
}

func TestScheduleShape(t *testing.T) {
	o := scheduleOpts()
	p, err := Schedule(NewRand(1), New(Env{}), o)
	clustertest.Must(t, err)
	if p.HealAt != o.WarmUp+o.Faults || p.End != p.HealAt+o.Recovery {
		t.Errorf("heal at %v, end %v", p.HealAt, p.End)
	}
	if len(p.Steps) < 8 {
		t.Fatalf("only %d steps in a 60s fault phase", len(p.Steps))
	}
	kinds := map[string]bool{}
	prevEnd := time.Duration(0)
	for i, s := range p.Steps {
		kinds[s.Fault.Kind] = true
		if s.At < o.WarmUp || s.end() > p.HealAt {
			t.Errorf("step %d [%v, %v] outside the fault phase", i, s.At, s.end())
		}
		if i > 0 && s.At < prevEnd+time.Second {
			t.Errorf("step %d starts %v, less than 1s after the previous ended at %v", i, s.At, prevEnd)
		}
		if s.Duration != s.Fault.Duration {
			t.Errorf("step %d duration %v, fault says %v", i, s.Duration, s.Fault.Duration)
		}
		prevEnd = s.end()
	}
	if len(kinds) < 5 {
		t.Errorf("only kinds %v drawn in %d steps", kinds, len(p.Steps))
	}
}

func TestScheduleOverlap(t *testing.T) {
	o := scheduleOpts()
	o.Overlap = true
	o.Kinds = []string{KindPartition, KindLatency, KindClientPause}
	p, err := Schedule(NewRand(9), New(Env{}), o)
	clustertest.Must(t, err)
	overlaps := 0
	for i, s := range p.Steps {
		for _, u := range p.Steps[:i] {
			if u.end() > s.At {
				overlaps++
				if u.Fault.Kind == s.Fault.Kind {
					t.Errorf("two %s faults active at once at %v", s.Fault.Kind, s.At)
				}
			}
		}
	}
	if overlaps == 0 {
		t.Error("no overlapping faults with Overlap set")
	}
}

func TestScheduleErrors(t *testing.T) {
	set := New(Env{})
	o := scheduleOpts()
	o.Kinds = []string{"meteor"}
	if _, err := Schedule(NewRand(1), set, o); err == nil {
		t.Error("unknown kind accepted")
	}
	o = scheduleOpts()
	o.Faults = 0
	if _, err := Schedule(NewRand(1), set, o); err == nil {
		t.Error("zero fault phase accepted")
	}
}

func TestScripted(t *testing.T) {
	p := Scripted(3*time.Second,
		Step{At: 2 * time.Second, Fault: Fault{Kind: KindClockJump, Nodes: []string{"n3"}, JumpBy: 5 * time.Second}},
		Step{At: 0, Fault: Fault{Kind: KindPartition, Nodes: []string{"n4", "n5"}, Clients: []string{"c1"}}, Duration: 4 * time.Second},
		Step{At: time.Second, Fault: Fault{Kind: KindCrash, Nodes: []string{"n3"}, RestartDelay: 4 * time.Second}, Duration: time.Second},
	)
	var at []time.Duration
	for _, s := range p.Steps {
		at = append(at, s.At)
	}
	if !slices.IsSorted(at) {
		t.Errorf("steps not ordered: %v", at)
	}
	if p.HealAt != 6*time.Second || p.End != 9*time.Second {
		t.Errorf("heal at %v, end %v; want 6s, 9s", p.HealAt, p.End)
	}
	if err := p.Validate(New(Env{})); err != nil {
		t.Error(err)
	}
}
