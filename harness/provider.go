package harness

import (
	"context"
	"crypto/tls"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/docker"
	"github.com/lockstorm/lockstorm/cluster/external"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/lockstorm/lockstorm/config"
)

// startCluster starts the configured provider with the run's clients.
func startCluster(ctx context.Context, cfg config.Config, clients []string, replica bool) (cluster.Cluster, error) {
	if cfg.Topology == config.TopologyCluster {
		return rediscluster.Start(ctx, rediscluster.Config{Masters: cfg.Nodes, Clients: clients,
			Persistence: cfg.Persistence, Keep: cfg.KeepClusterDir})
	}
	switch cfg.Provider {
	case "docker":
		return docker.Start(ctx, docker.Config{Nodes: cfg.Nodes, Clients: clients,
			Persistence: cfg.Persistence, Image: cfg.DockerImage, KeepContainers: cfg.KeepClusterDir,
			Replica: replica})
	case "external":
		e := cfg.External
		return external.Start(ctx, external.Config{Addrs: e.RedisAddrs, PasswordEnv: e.PasswordEnv,
			TLS: e.TLS, ToxiproxyAPI: e.Toxiproxy, ListenHost: e.ListenHost, Clients: clients,
			AllowNonLoopback: e.AllowNonLoopback})
	}
	return local.Start(ctx, local.Config{Nodes: cfg.Nodes, Clients: clients,
		Persistence: cfg.Persistence, KeepDir: cfg.KeepClusterDir, Replica: replica})
}

// clientOptions adds what the provider needs (password, TLS) to a node
// client's options.
func clientOptions(c cluster.Cluster, node string, o *redis.Options) error {
	ext, ok := c.(*external.Cluster)
	if !ok {
		return nil
	}
	o.Password = ext.Password()
	if ext.TLS() {
		name, err := ext.ServerName(node)
		if err != nil {
			return err
		}
		o.TLSConfig = &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
	}
	return nil
}
