package hashslot

import "testing"

// Values from the Redis Cluster specification and CLUSTER KEYSLOT.
func TestOf(t *testing.T) {
	for key, want := range map[string]int{"foo": 12182, "123456789": 12739, "": 0} {
		if got := Of(key); got != want {
			t.Errorf("Of(%q) = %d, want %d", key, got, want)
		}
	}
	if Of("{user1000}.following") != Of("{user1000}.followers") {
		t.Error("keys sharing the tag {user1000} are in different slots")
	}
	if Of("foo{}{bar}") != Of("foo{}{bar}") || Of("foo{}{bar}") == Of("bar") {
		t.Error("an empty first tag must hash the whole key")
	}
	if Of("foo{{bar}}zap") != Of("{bar") {
		t.Error("the tag is what lies between the first '{' and the first '}' after it")
	}
	if Of("lock:{lockstorm}") != Of("lock:{lockstorm}:fence") || Of("lock:{lockstorm}") != Of("lockstorm") {
		t.Error("a lock key's derived keys must share its slot")
	}
}
