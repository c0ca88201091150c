package lockimpl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/clustertest/locktest"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// TestRegistry: every name builds a lock; an unknown name is an error
// that lists the allowed names; broken locks are named as such.
func TestRegistry(t *testing.T) {
	clients := locktest.Proxied(t, "c1", 5)
	for _, name := range lockimpl.Names() {
		l, err := lockimpl.New(name, clients, lockimpl.Options{})
		if err != nil || l == nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if lockimpl.Broken(name) != strings.HasPrefix(name, "unsafe-") {
			t.Errorf("Broken(%q) = %v", name, lockimpl.Broken(name))
		}
	}
	_, err := lockimpl.New("redlok", clients, lockimpl.Options{})
	if !errors.Is(err, lockimpl.ErrUnknownLock) {
		t.Fatalf("unknown name: %v", err)
	}
	for _, name := range lockimpl.Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
	if _, err := lockimpl.New("single", nil, lockimpl.Options{}); !errors.Is(err, lockimpl.ErrNoClients) {
		t.Errorf("no clients: %v", err)
	}
}

// WithDefaults is idempotent (the harness fills options before a built-in
// lock fills them again), including "no proportional drift".
func TestWithDefaultsIdempotent(t *testing.T) {
	for _, o := range []lockimpl.Options{{}, {TTL: 300 * time.Millisecond, DriftFactor: -1}, {NodeNames: []string{"a"}}} {
		once := o.WithDefaults(3)
		twice := once.WithDefaults(3)
		if once.Drift() != twice.Drift() || once.NodeTimeout != twice.NodeTimeout || once.RetryMax != twice.RetryMax ||
			len(twice.NodeNames) != 3 || once.NodeNames[0] != twice.NodeNames[0] {
			t.Errorf("%+v: once %+v, twice %+v", o, once, twice)
		}
	}
	if d := (lockimpl.Options{TTL: time.Second, DriftFactor: -1}).WithDefaults(1).Drift(); d != 2*time.Millisecond {
		t.Errorf("negative DriftFactor: drift %v, want 2ms", d)
	}
}

// Which built-in locks offer Extend is part of what they are (the leader
// workload extends when it can): fair-naive and the broken ones but
// unsafe-crossslot (the fenced lock with a misplaced counter) do not.
func TestExtenders(t *testing.T) {
	want := map[string]bool{"single": true, "single-wait": true, "renewable": true, "redlock": true, "fair": true, "fenced": true, "fenced-redlock": true, "unsafe-crossslot": true}
	clients := locktest.Proxied(t, "c1", locktest.Nodes)
	for _, name := range lockimpl.Names() {
		l, err := lockimpl.New(name, clients, lockimpl.Options{})
		clustertest.Must(t, err)
		if _, ok := l.(lockimpl.Extender); ok != want[name] {
			t.Errorf("%s: Extender %v, want %v", name, ok, want[name])
		}
	}
}
