package cluster

import (
	"errors"
	"slices"
	"testing"
)

// fakeProxy is a toxicProxy in memory that records what the engine does
// and can refuse to add one toxic.
type fakeProxy struct {
	toxics  []string
	log     []string
	refuse  string // add of this name fails
	removed []string
}

func (f *fakeProxy) listen() string                { return "127.0.0.1:1" }
func (f *fakeProxy) has(name string) (bool, error) { return slices.Contains(f.toxics, name), nil }
func (f *fakeProxy) count() (int, error)           { return len(f.toxics), nil }
func (f *fakeProxy) clear() error                  { f.toxics = nil; return nil }
func (f *fakeProxy) add(name, stream string, _ toxicSpec) error {
	if name == f.refuse {
		return errors.New("refused")
	}
	f.toxics = append(f.toxics, name)
	f.log = append(f.log, "add "+name+" "+stream)
	return nil
}
func (f *fakeProxy) remove(name string) {
	if i := slices.Index(f.toxics, name); i >= 0 {
		f.toxics = slices.Delete(f.toxics, i, i+1)
		f.removed = append(f.removed, name)
	}
}

// A pair is added once, one toxic per direction; repeating it adds
// nothing (a repeated freeze must not reset what it holds).
func TestEnsurePairIdempotent(t *testing.T) {
	px := &fakeProxy{}
	for i := 0; i < 2; i++ {
		if err := ensurePair(px, cutToxics, cutSpec); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"add lockstorm-cut-up upstream", "add lockstorm-cut-down downstream"}
	if !slices.Equal(px.log, want) {
		t.Fatalf("log %v, want %v", px.log, want)
	}
}

// When the downstream toxic cannot be added, the upstream one just added
// is taken away again: no link is left cut one way only.
func TestEnsurePairRollsBack(t *testing.T) {
	px := &fakeProxy{refuse: freezeToxics.down}
	if err := ensurePair(px, freezeToxics, cutSpec); err == nil {
		t.Fatal("no error")
	}
	if len(px.toxics) != 0 {
		t.Fatalf("left %v on the proxy", px.toxics)
	}
	// An upstream toxic that was there before stays.
	px = &fakeProxy{toxics: []string{freezeToxics.up}, refuse: freezeToxics.down}
	if err := ensurePair(px, freezeToxics, cutSpec); err == nil {
		t.Fatal("no error")
	}
	if !slices.Equal(px.toxics, []string{freezeToxics.up}) {
		t.Fatalf("toxics %v, want the earlier upstream one kept", px.toxics)
	}
}

// Latency on one stream adds one toxic; a failed downstream add on both
// streams leaves no latency behind.
func TestSetLatency(t *testing.T) {
	px := &fakeProxy{}
	if err := setLatency(px, Latency{Stream: Upstream}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(px.toxics, []string{latencyToxics.up}) {
		t.Fatalf("toxics %v", px.toxics)
	}
	px.refuse = latencyToxics.down
	if err := setLatency(px, Latency{Stream: Both}); err == nil {
		t.Fatal("no error")
	}
	if len(px.toxics) != 0 {
		t.Fatalf("left %v", px.toxics)
	}
}

// Healing removes the freeze first, so that held data is delivered
// before the latency and the cut go.
func TestHealProxyOrder(t *testing.T) {
	px := &fakeProxy{}
	for _, p := range []toxicPair{cutToxics, latencyToxics, freezeToxics} {
		if err := ensurePair(px, p, cutSpec); err != nil {
			t.Fatal(err)
		}
	}
	if err := healProxy(px); err != nil {
		t.Fatal(err)
	}
	want := []string{freezeToxics.up, freezeToxics.down, latencyToxics.up, latencyToxics.down, cutToxics.up, cutToxics.down}
	if !slices.Equal(px.removed, want) || len(px.toxics) != 0 {
		t.Fatalf("removed %v (left %v), want %v", px.removed, px.toxics, want)
	}
}
