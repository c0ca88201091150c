package cluster_test

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/redis/go-redis/v9"
)

// BenchmarkStartStop3 measures starting and stopping a 3-node, 2-client
// local cluster (the fixed cost of every test and run).
func BenchmarkStartStop3(b *testing.B) {
	for b.Loop() {
		c, err := local.Start(context.Background(), local.Config{Nodes: 3, Clients: []string{"c1", "c2"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPing compares a PING round trip through a client's proxy with
// one straight to the node: the cost toxiproxy adds to every command.
func BenchmarkPing(b *testing.B) {
	c := clustertest.Start(b, 1, "c1")
	proxied, _ := c.Addr("c1", "n1")
	direct, _ := c.AdminAddr("n1")
	for _, bc := range []struct{ name, addr string }{{"proxy", proxied}, {"direct", direct}} {
		b.Run(bc.name, func(b *testing.B) {
			rc := redis.NewClient(&redis.Options{Addr: bc.addr, Protocol: 2, DisableIdentity: true})
			defer rc.Close()
			ctx := context.Background()
			for b.Loop() {
				if err := rc.Ping(ctx).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFaultCycle measures one Cut+Heal of one link and one
// Freeze+Thaw of a client with 3 links: the nemesis's control cost.
func BenchmarkFaultCycle(b *testing.B) {
	c := clustertest.Start(b, 3, "c1")
	ctx := context.Background()
	links := cluster.Links("c1", "n1")
	b.Run("cut-heal", func(b *testing.B) {
		for b.Loop() {
			if err := c.Cut(ctx, links); err != nil {
				b.Fatal(err)
			}
			if err := c.Heal(ctx, links); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("freeze-thaw", func(b *testing.B) {
		for b.Loop() {
			if err := c.Freeze(ctx, "c1"); err != nil {
				b.Fatal(err)
			}
			if err := c.Thaw(ctx, "c1"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
