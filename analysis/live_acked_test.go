package analysis

import "testing"

// The live counter's memory of acknowledged values is bounded: a value is
// a duplicate while it is among the last ackedKeep, forgotten after.
func TestAckedValuesBounded(t *testing.T) {
	a := &ackedValues{set: map[int64]bool{}}
	if !a.add(1) || a.add(1) {
		t.Fatal("1 added twice without a duplicate reported")
	}
	for v := int64(2); v <= 3*ackedKeep; v++ {
		a.add(v)
	}
	if len(a.set) >= 2*ackedKeep || len(a.order) != len(a.set) {
		t.Fatalf("%d values remembered (%d in order), want under %d", len(a.set), len(a.order), 2*ackedKeep)
	}
	if a.add(3 * ackedKeep) {
		t.Error("a recent value was forgotten")
	}
	if !a.add(1) {
		t.Error("the oldest value is still remembered")
	}
}
