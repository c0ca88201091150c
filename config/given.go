package config

import (
	"fmt"
	"slices"
)

// zeroRefused lists the flags (and plan keys) refused when given
// explicitly as 0: left out, 0 takes the default.
var zeroRefused = []struct {
	flag    string
	allowed string
	isZero  func(Config) bool
}{
	{"ttl", "a duration of at least 10ms", func(c Config) bool { return c.TTL == 0 }},
	{"nodes", "1..15", func(c Config) bool { return c.Nodes == 0 }},
	{"clients", "1..64", func(c Config) bool { return c.Clients == 0 }},
	{"time-limit", "a positive duration", func(c Config) bool { return c.TimeLimit == 0 }},
}

// CheckGiven refuses what the command line must not quietly default: a
// zeroRefused flag given as 0 (given nil: none was given), and fencing
// with a built-in lock that issues no tokens. Errors wrap ErrConfig.
func (c Config) CheckGiven(given func(flag string) bool) error {
	for _, z := range zeroRefused {
		if given != nil && given(z.flag) && z.isZero(c) {
			return fmt.Errorf("%w: --%s must be %s, got 0", ErrConfig, z.flag, z.allowed)
		}
	}
	if c.Fencing && c.NewLock == nil {
		d := c
		d.fillDefaults() // the default lock when none was named
		if slices.Contains(LockNames(), d.Lock) && !IssuesFences(d.Lock) && !d.lockIsLabel() {
			return fmt.Errorf("%w: --fencing needs a lock that issues fencing tokens (fenced, fenced-redlock); %s issues none", ErrConfig, d.Lock)
		}
	}
	return nil
}

// GivenAmong is given restricted to the flags names.
func GivenAmong(given func(string) bool, names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) && given(n) }
}
