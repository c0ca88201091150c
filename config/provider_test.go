package config

import (
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/nemesis"
)

// A provider runs exactly the kinds whose needs it offers: local and
// docker all but slot-migrate, external five (not flush), a Redis
// Cluster every kind.
func TestProviderFaultKinds(t *testing.T) {
	external := []string{nemesis.KindPartition, nemesis.KindLatency, nemesis.KindClientPause,
		nemesis.KindClientCrash, nemesis.KindClockJump}
	for _, p := range append(slices.Clone(Providers), "local/cluster") {
		for _, k := range nemesis.Kinds {
			cfg := Config{Provider: p, Nemesis: []string{k},
				External: External{RedisAddrs: []string{"127.0.0.1:1"}, Toxiproxy: "127.0.0.1:2"}}
			if p == "local/cluster" {
				cfg.Provider, cfg.Topology = "local", TopologyCluster
			}
			err := cfg.checkProvider()
			want := p == "local/cluster" || p != "external" && k != nemesis.KindSlotMigrate || slices.Contains(external, k)
			if want != (err == nil) {
				t.Errorf("%s provider, %s fault: %v; want supported %v", p, k, err, want)
			}
		}
	}
}
