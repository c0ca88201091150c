package rediscluster_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// A command whose reply is late is not sent again: with go-redis's
// defaults the cluster client would send the INCR again after the read
// timeout (MaxRedirects also bounds network retries), first to the same
// node, then to another.
func TestTimedOutCommandIsNotSentAgain(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	ctx := clustertest.Context(t, 20*time.Second)
	o, err := c.ClusterOptions("c1")
	clustertest.Must(t, err)
	o.ReadTimeout = 200 * time.Millisecond
	var sent atomic.Int32
	nodeClient := o.NewClient
	o.NewClient = func(opt *redis.Options) *redis.Client {
		rc := nodeClient(opt)
		rc.AddHook(countIncr{&sent})
		return rc
	}
	rc := redis.NewClusterClient(o)
	defer rc.Close()
	k := keyOn(t, c, "n2", "counter")
	clustertest.Must(t, rc.Set(ctx, k, 0, 0).Err())

	delay := cluster.Latency{Delay: 600 * time.Millisecond, Stream: cluster.Upstream}
	clustertest.Must(t, c.AddLatency(ctx, cluster.Links("c1", "n2"), delay))
	err = rc.Incr(context.Background(), k).Err()
	if !errors.Is(err, rediscluster.ErrNoReply) {
		t.Errorf("INCR with a late reply: %v, want ErrNoReply", err)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the INCR was sent to a node %d times, want once", n)
	}
}

// countIncr counts the INCR commands a node client is asked to send.
type countIncr struct{ n *atomic.Int32 }

func (countIncr) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countIncr) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "incr" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (countIncr) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
