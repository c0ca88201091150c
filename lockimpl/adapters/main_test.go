package adapters_test

import (
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// One local cluster for the whole package (see locktest).
func TestMain(m *testing.M) { locktest.Main(m, "adapters") }

// The adapters, by the names they register under (importing the package
// registers them, as the harness does).
var adapterNames = []string{"redsync", "redislock"}

// The adapters keep the contract of every correct lock (lockimpl's tests
// run the same on the built-in locks).
func TestMutualExclusion(t *testing.T) { locktest.MutualExclusion(t, adapterNames) }

func TestReleaseNotHeld(t *testing.T) { locktest.ReleaseNotHeld(t, adapterNames) }

func TestExtend(t *testing.T) { locktest.Extend(t, adapterNames) }

// redislock drives one node: a cut makes its acquire's outcome unknown.
func TestUnknownOutcome(t *testing.T) { locktest.UnknownOutcome(t, []string{"redislock"}) }

// Importing the package registers both adapters with lockimpl: New builds
// them by name, redsync over every node, and Names lists them between the
// correct built-in locks and the broken ones.
func TestRegistered(t *testing.T) {
	names := lockimpl.Names()
	at := func(n string) int { return slices.Index(names, n) }
	if at("redsync") < 0 || at("redsync")+1 != at("redislock") || at("fenced-redlock") > at("redsync") || at("redislock") > at("unsafe-del") {
		t.Fatalf("Names() = %v: want redsync, redislock after the built-in correct locks and before the broken ones", names)
	}
	if !lockimpl.MultiNode("redsync") || lockimpl.MultiNode("redislock") {
		t.Error("redsync must use every node, redislock one")
	}
	for _, n := range adapterNames {
		if _, ok := locktest.NewLock(t, n, "c1", lockimpl.Options{}).(lockimpl.Extender); !ok {
			t.Errorf("%s built by name does not extend", n)
		}
	}
}
