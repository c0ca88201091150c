package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
)

// parseRun parses a `lockstorm run` command line with run's own flag
// parsing and returns the configuration it asks for, after defaults.
func parseRun(t *testing.T, line string) config.Config {
	t.Helper()
	words, err := config.SplitCommand(line)
	if err != nil || len(words) < 2 || words[0] != "lockstorm" || words[1] != "run" {
		t.Fatalf("%q is not a lockstorm run line (%v)", line, err)
	}
	var got config.Config
	cmd := runCommandWith(func(_ *cobra.Command, cfg config.Config, _ runOptions) error {
		got = cfg
		return nil
	})
	cmd.SetArgs(words[2:])
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	c, err := got.WithDefaults()
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return c
}

// The replay command carries every setting that changed the run: parsed
// back by run's own flag parsing it gives the same configuration, for
// every provider, topology, client command, pause model, image, fencing,
// fault list and explicit zero. Only what does not change the run (name,
// store, keep) may differ.
func TestReplayRoundTrip(t *testing.T) {
	base := config.Config{Seed: 42}
	for name, change := range map[string]func(*config.Config){
		"defaults": func(*config.Config) {},
		"redlock faults": func(c *config.Config) {
			c.Lock, c.Nemesis, c.Nodes, c.Clients, c.TTL, c.TimeLimit = "redlock", []string{"partition", "client-pause", "clock-jump"}, 7, 9, 750*time.Millisecond, 3*time.Second
		},
		"docker": func(c *config.Config) {
			c.Provider, c.DockerImage, c.Persistence, c.Nemesis = "docker", "lockstorm/redis:7", "aof-always", []string{"crash"}
		},
		"cluster": func(c *config.Config) { c.Topology, c.Nodes, c.Lock = config.TopologyCluster, 3, "single" },
		"client-cmd": func(c *config.Config) {
			c.ClientCmd, c.PauseModel, c.Nemesis = `lockstorm client --lock single --label 'a b'`, config.PauseLinks, []string{"client-pause"}
		},
		"client-cmd process pause": func(c *config.Config) {
			c.ClientCmd, c.PauseModel = "lockstorm client --lock renewable", config.PauseProcess
		},
		"fencing": func(c *config.Config) {
			c.Lock, c.Fencing, c.RenewEvery, c.FaultInterval = "fenced", true, 100*time.Millisecond, 500*time.Millisecond
		},
		"python lock, links pause": func(c *config.Config) {
			c.Lock, c.PauseModel, c.Nemesis = "py-redispy", config.PauseLinks, []string{"client-pause"}
		},
		"explicit zeros": func(c *config.Config) { c.TargetHolder, c.MinCoverage = -1, -1 },
		"aim":            func(c *config.Config) { c.TargetHolder, c.MinCoverage, c.Workload = 0.25, 3, "cron" },
		"external": func(c *config.Config) {
			c.Provider, c.Lock = "external", "redlock"
			c.External = config.External{RedisAddrs: []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"},
				Toxiproxy: "127.0.0.1:8474", ListenHost: "127.0.0.2", PasswordEnv: "REDIS_PW", TLS: true, AllowNonLoopback: true}
		},
	} {
		c := base
		change(&c)
		c.Name, c.Store, c.KeepClusterDir = "stored-name", "/tmp/elsewhere", true
		want, err := c.WithDefaults()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		line := reports.ReplayCommand(want)
		got := parseRun(t, line)
		want.Name, want.Store, want.KeepClusterDir = got.Name, got.Store, got.KeepClusterDir
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s\nreplays as %+v\nwant       %+v", name, line, got, want)
		}
		if name != "defaults" && !strings.Contains(line, "--seed 42") {
			t.Errorf("%s: %s has no seed", name, line)
		}
	}
}

// A run configured by a --config plan file replays from its command line
// alone: the plan's settings are in the replay command.
func TestReplayRoundTripPlanFile(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("lock: fenced\nfencing: true\nnemesis: client-pause, partition\nclients: 6\nttl: 400ms\nprovider: docker\ndocker-image: lockstorm/redis:7\ntarget-holder: 0\n"), 0o644)
	want := parseRun(t, "lockstorm run --config "+plan+" --seed 7 --time-limit 3s")
	line := reports.ReplayCommand(want)
	if got := parseRun(t, line); !reflect.DeepEqual(got, want) {
		t.Errorf("%s\nreplays as %+v\nwant       %+v", line, got, want)
	}
}
