package config_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
)

// What each lock's config becomes with defaults: nodes by lock family
// (Redlock-like locks on 5), the fair queue judged FIFO, the rest shared.
func TestWithDefaultsTable(t *testing.T) {
	for _, tc := range []struct {
		lock  string
		nodes int
		fair  bool
	}{
		{"single", 1, false},
		{"fenced", 1, false},
		{"renewable", 1, false},
		{"redlock", 5, false},
		{"fenced-redlock", 5, false},
		{"redsync", 5, false},
		{"redislock", 1, false},
		{"fair", 1, true},
		{"fair-naive", 1, true},
		{"py-setnx-expire", 1, false},
	} {
		c, err := config.Config{Lock: tc.lock}.WithDefaults()
		if err != nil {
			t.Errorf("%s: %v", tc.lock, err)
			continue
		}
		if c.Nodes != tc.nodes || c.Fair != tc.fair {
			t.Errorf("%s: nodes %d fair %v, want %d %v", tc.lock, c.Nodes, c.Fair, tc.nodes, tc.fair)
		}
		if c.Clients != 4 || c.TTL != time.Second || c.Workload != "counter" || c.Provider != "local" || c.TimeLimit != 20*time.Second {
			t.Errorf("%s: clients %d ttl %v workload %q provider %q time limit %v; want the shared defaults 4, 1s, counter, local, 20s",
				tc.lock, c.Clients, c.TTL, c.Workload, c.Provider, c.TimeLimit)
		}
	}
}

func TestSplitCommandTable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: an error
	}{
		{`a b`, []string{"a", "b"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`a 'b c'`, []string{"a", "b c"}},
		{`a\ b`, []string{"a b"}},
		{`  python3   client.py  `, []string{"python3", "client.py"}},
		{`a "b`, nil},
		{``, nil},
	} {
		got, err := config.SplitCommand(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("SplitCommand(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
