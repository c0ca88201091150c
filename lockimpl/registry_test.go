package lockimpl

import (
	"errors"
	"strings"
	"testing"
)

// TestRegistry: every name builds a lock; an unknown name is an error
// that lists the allowed names; broken locks are named as such.
func TestRegistry(t *testing.T) {
	clients := proxied(t, "c1", 5)
	for _, name := range Names() {
		l, err := New(name, clients, Options{})
		if err != nil || l == nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if Broken(name) != strings.HasPrefix(name, "unsafe-") {
			t.Errorf("Broken(%q) = %v", name, Broken(name))
		}
	}
	_, err := New("redlok", clients, Options{})
	if !errors.Is(err, ErrUnknownLock) {
		t.Fatalf("unknown name: %v", err)
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
	if _, err := New(nameSingle, nil, Options{}); !errors.Is(err, ErrNoClients) {
		t.Errorf("no clients: %v", err)
	}
}
