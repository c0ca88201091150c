package page

import "testing"

// Count puts the noun in the right number.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 stale writes"}, {1, "1 stale write"}, {2, "2 stale writes"}, {-1, "-1 stale writes"}} {
		if got := Count(c.n, "stale write", "stale writes"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestShortToken(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"tok-a":                            "tok-a",
		"123456789":                        "123456789",
		"25211190e7ff8fdbf03f87e5a8acb5fd": "25211190…",
	} {
		if got := ShortToken(in); got != want {
			t.Errorf("ShortToken(%q) = %q, want %q", in, got, want)
		}
	}
}
