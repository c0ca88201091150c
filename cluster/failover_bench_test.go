package cluster_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// benchFailover measures one failover (loss of the master to retargeted
// proxies) and one failback per iteration, reported as ms/failover and
// ms/failback.
func benchFailover(b *testing.B, prom cluster.Promotion, method cluster.FailoverMethod) {
	if _, err := exec.LookPath("redis-" + map[bool]string{true: "sentinel", false: "server"}[prom == cluster.PromoteSentinel]); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	c, err := local.Start(ctx, local.Config{Nodes: 1, Replica: true, ReplicaOptions: cluster.ReplicaOptions{Promotion: prom}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Stop()
	var over, back time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := c.Failover(ctx, cluster.FailoverOptions{Method: method})
		if err != nil {
			b.Fatal(err)
		}
		over += res.Took
		start := time.Now()
		if err := c.Failback(ctx); err != nil {
			b.Fatal(err)
		}
		back += time.Since(start)
	}
	b.ReportMetric(float64(over.Milliseconds())/float64(b.N), "ms/failover")
	b.ReportMetric(float64(back.Milliseconds())/float64(b.N), "ms/failback")
}

func BenchmarkFailoverManualKill(b *testing.B) {
	benchFailover(b, cluster.PromoteManual, cluster.FailoverKill)
}
func BenchmarkFailoverSentinelKill(b *testing.B) {
	benchFailover(b, cluster.PromoteSentinel, cluster.FailoverKill)
}
func BenchmarkFailoverSentinelPartition(b *testing.B) {
	benchFailover(b, cluster.PromoteSentinel, cluster.FailoverPartition)
}
