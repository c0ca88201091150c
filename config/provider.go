package config

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/nemesis"
)

// Providers lists where Redis can run.
var Providers = []string{"local", "docker", "external"}

// External describes existing Redis endpoints for the external provider.
type External struct {
	// RedisAddrs are the endpoints ("host:port"), named n1..nN.
	RedisAddrs []string `json:"redis_addrs,omitempty"`
	// Toxiproxy is the toxiproxy server's API address ("host:port").
	Toxiproxy string `json:"toxiproxy,omitempty"`
	// ListenHost is where that server's proxies listen (default: its host).
	ListenHost string `json:"listen_host,omitempty"`
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string `json:"password_env,omitempty"`
	// TLS says the endpoints speak TLS.
	TLS bool `json:"tls,omitempty"`
	// AllowNonLoopback permits endpoints off this host's loopback.
	AllowNonLoopback bool `json:"allow_non_loopback,omitempty"`
}

// ownNodes is what a provider running its own nodes can do to them.
var ownNodes = []nemesis.Capability{nemesis.NeedLinks, nemesis.NeedProcess, nemesis.NeedAdmin, nemesis.NeedOwnData, nemesis.NeedReplica}

// capabilities lists what each provider can do to its nodes
// (nemesis.Spec.Needs); a Redis Cluster adds NeedRedisCluster.
var capabilities = map[string][]nemesis.Capability{"local": ownNodes, "docker": ownNodes,
	"external": {nemesis.NeedLinks, nemesis.NeedAdmin}}

// checkProvider checks the provider settings and the faults it must apply.
func (c Config) checkProvider() error {
	caps, ok := capabilities[c.Provider]
	if ok && c.Topology == TopologyCluster {
		caps = append(slices.Clip(caps), nemesis.NeedRedisCluster)
	}
	kinds := nemesis.Supported(caps...)
	if !ok {
		return fmt.Errorf("--provider must be one of local, docker, external, got %q", c.Provider)
	}
	want := slices.Clone(c.Nemesis)
	if c.Plan != nil {
		for _, s := range c.Plan.Steps {
			want = append(want, s.Fault.Kind)
		}
	}
	for _, k := range want {
		if !slices.Contains(kinds, k) {
			return fmt.Errorf("--nemesis %s is not supported by the %s provider (it supports %v)", k, c.Provider, kinds)
		}
	}
	if c.Provider == "external" {
		if len(c.External.RedisAddrs) == 0 {
			return fmt.Errorf("--redis-addrs is required with --provider external")
		}
		if c.External.Toxiproxy == "" {
			return fmt.Errorf("--toxiproxy is required with --provider external")
		}
	}
	return nil
}
