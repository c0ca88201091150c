package main

import (
	"fmt"
	"testing"

	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/harness"
)

// --clients has one default, harness.DefaultClients, in every subcommand
// that runs clients: the flag's default and the spec's zero-value
// default agree. (sweep takes it from the same constant.)
func TestClientsDefaultIsShared(t *testing.T) {
	want := fmt.Sprint(harness.DefaultClients)
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
	if err != nil || s.Clients != harness.DefaultClients || s.TimeLimit != harness.DefaultScheduleTimeLimit {
		t.Errorf("compare spec defaults: clients %d, time limit %v (%v)", s.Clients, s.TimeLimit, err)
	}
	c, err := harness.Config{}.WithDefaults()
	if err != nil || c.Clients != harness.DefaultClients || c.TimeLimit != harness.DefaultTimeLimit {
		t.Errorf("run config defaults: clients %d, time limit %v (%v)", c.Clients, c.TimeLimit, err)
	}
}
