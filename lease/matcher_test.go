package lease

import "testing"

// TestMatcherRule walks the token rule's three steps and their order.
func TestMatcherRule(t *testing.T) {
	byTok := map[tokKey]int{{"k", "a"}: 1, {"k", "b"}: 2}
	m := NewMatcher(func(key, token string) (int, bool) {
		l, ok := byTok[tokKey{key, token}]
		return l, ok
	})
	m.Acquired(0, "k", "a", 1)
	cases := []struct {
		name       string
		p          int
		token      string
		want       int
		wantTok    string
		wantExists bool
	}{
		{"own lease", 0, "a", 1, "a", true},
		{"no token takes the current lease's", 0, "", 1, "a", true},
		{"another process's token (a watchdog)", 9, "b", 2, "b", true},
		{"an unknown token", 0, "z", 0, "z", false},
		{"no token and no current lease", 9, "", 0, "", false},
	}
	for _, c := range cases {
		l, tok, ok := m.Match(c.p, "k", c.token)
		if l != c.want || tok != c.wantTok || ok != c.wantExists {
			t.Errorf("%s: Match = %d %q %v, want %d %q %v", c.name, l, tok, ok, c.want, c.wantTok, c.wantExists)
		}
	}
	// A process matched before keeps its lease though the table moves on.
	byTok[tokKey{"k", "b"}] = 3
	if l, _, _ := m.Match(9, "k", "b"); l != 2 {
		t.Errorf("matched before: got lease %d, want 2", l)
	}
	m.Forget(9, "k", 2)
	if l, _, _ := m.Match(9, "k", "b"); l != 3 {
		t.Errorf("after Forget: got lease %d, want the table's 3", l)
	}
	m.Drop(0, "k")
	if _, ok := m.Current(0, "k"); ok {
		t.Error("Drop kept the current lease")
	}
}
