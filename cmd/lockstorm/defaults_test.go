package main

import (
	"fmt"
	"testing"

	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/config"
)

// --clients has one default, config.DefaultClients, in every subcommand
// that runs clients: the flag's default and the spec's zero-value
// default agree. (sweep takes it from the same constant.)
func TestClientsDefaultIsShared(t *testing.T) {
	want := fmt.Sprint(config.DefaultClients)
	for name, cmd := range map[string]func() string{
		"run":     func() string { return runCommand().Flags().Lookup("clients").DefValue },
		"compare": func() string { return compareCommand().Flags().Lookup("clients").DefValue },
		"sweep":   func() string { return sweepCommand().Flags().Lookup("clients").DefValue },
	} {
		if got := cmd(); got != want {
			t.Errorf("%s --clients default %s, want %s", name, got, want)
		}
	}
	s, err := compare.Spec{}.WithDefaults()
	if err != nil || s.Clients != config.DefaultClients || s.TimeLimit != config.DefaultTimeLimit {
		t.Errorf("compare spec defaults: clients %d, time limit %v (%v)", s.Clients, s.TimeLimit, err)
	}
	c, err := config.Config{}.WithDefaults()
	if err != nil || c.Clients != config.DefaultClients || c.TimeLimit != config.DefaultTimeLimit {
		t.Errorf("run config defaults: clients %d, time limit %v (%v)", c.Clients, c.TimeLimit, err)
	}
}
