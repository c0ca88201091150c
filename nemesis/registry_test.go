package nemesis

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// The kinds registered before registration existed keep their order (the
// --nemesis list); every registered kind builds a nemesis of its kind
// that can be aimed.
func TestRegistryKinds(t *testing.T) {
	old := []string{KindPartition, KindLatency, KindClientPause, KindClientCrash,
		KindServerPause, KindCrash, KindClockJump, KindFailover}
	if !slices.Equal(Kinds[:len(old)], old) {
		t.Errorf("Kinds = %v, want them to start with %v", Kinds, old)
	}
	set := New(Env{})
	for _, s := range Specs() {
		n := set[s.Kind]
		if n == nil {
			t.Errorf("%s: New built %v", s.Kind, n)
			continue
		}
		if _, ok := n.(Targeter); !ok {
			t.Errorf("%s cannot be aimed", s.Kind)
		}
		if s.Colour.A != 0xff {
			t.Errorf("%s registers an unseen colour: %+v", s.Kind, s)
		}
	}
	if len(set) != len(Kinds) {
		t.Errorf("New built %d nemeses for %d kinds", len(set), len(Kinds))
	}
}

// What Draw and Aim produce uses only the fields its kind registered, so
// that no scheduled fault is refused by Validate.
func TestRegisteredParamsCoverDraws(t *testing.T) {
	set := New(Env{})
	tp := Topology{Nodes: []string{"n1", "n2", "n3", "n4", "n5"}, Clients: []string{"c1", "c2", "c3"},
		TTL: time.Second, Resource: "resource"}
	r := NewRand(3)
	for _, k := range Kinds {
		for i := 0; i < 50; i++ {
			f := set[k].Draw(r, tp)
			if err := checkParams(f); err != nil {
				t.Fatalf("drawn %v: %v", f, err)
			}
			if err := checkParams(set[k].(Targeter).Aim(r, f, tp, i)); err != nil {
				t.Fatalf("aimed %v: %v", f, err)
			}
		}
	}
}

// A scripted fault that sets a field its kind ignores is refused.
func TestValidateRefusesForeignParams(t *testing.T) {
	bad := Scripted(0, Step{Fault: Fault{Kind: KindCrash, Nodes: []string{"n1"}, Delay: time.Second}, Duration: time.Second})
	if err := bad.Validate(New(Env{})); !errors.Is(err, ErrBadFault) {
		t.Errorf("a crash with a delay: Validate = %v, want ErrBadFault", err)
	}
	good := Scripted(0, Step{Fault: Fault{Kind: KindCrash, Nodes: []string{"n1"}, RestartDelay: time.Second, Target: AimLease}, Duration: time.Second})
	if err := good.Validate(New(Env{})); err != nil {
		t.Errorf("a crash with a restart delay: %v", err)
	}
}

// Kinds run where their needs are met, and a plan needs a replica exactly
// when one of its kinds does.
func TestSupportedAndNeeds(t *testing.T) {
	got := Supported(NeedLinks, NeedAdmin)
	want := []string{KindPartition, KindLatency, KindClientPause, KindClientCrash, KindClockJump}
	if !slices.Equal(got, want) {
		t.Errorf("Supported(links, admin) = %v, want %v", got, want)
	}
	if all := Supported(NeedLinks, NeedProcess, NeedAdmin, NeedOwnData, NeedReplica, NeedRedisCluster); !slices.Equal(all, Kinds) {
		t.Errorf("every capability runs %v, want %v", all, Kinds)
	}
	crash := Scripted(0, Step{Fault: Fault{Kind: KindCrash, Nodes: []string{"n1"}}})
	failover := Scripted(0, Step{Fault: Fault{Kind: KindFailover}})
	if crash.Needs(NeedReplica) || !failover.Needs(NeedReplica) || (*Plan)(nil).Needs(NeedReplica) {
		t.Error("Needs(NeedReplica) wrong for a crash plan, a failover plan or no plan")
	}
}

// Registering a kind twice, or a parameter Fault does not have, panics.
func TestRegisterRefusesMistakes(t *testing.T) {
	for name, s := range map[string]Spec{
		"duplicate":     {Kind: KindCrash, New: func(Env) Nemesis { return &Crash{} }},
		"unknown param": {Kind: "x-test", Params: []string{"speed"}, New: func(Env) Nemesis { return &Crash{} }},
		"no New":        {Kind: "y-test"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(s)
		}()
	}
	if _, ok := Lookup("x-test"); ok {
		t.Error("a refused kind was registered")
	}
}

// Every random fault kind can be aimed (at a holder, a waiter or a
// lease): a kind whose Aim went missing would still draw, unaimed, and
// only the power table would notice.
func TestEveryKindAims(t *testing.T) {
	for _, kind := range []string{KindPartition, KindLatency, KindClientPause, KindClientCrash, KindServerPause,
		KindCrash, KindClockJump, KindFailover, KindFlush, KindSlotMigrate} {
		spec, ok := Lookup(kind)
		if !ok {
			t.Fatalf("%s not registered", kind)
		}
		if _, ok := spec.New(Env{}).(Targeter); !ok {
			t.Errorf("%s cannot be aimed: no Aim", kind)
		}
	}
}
