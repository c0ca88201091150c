package nemesis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkSchedule draws a plan with a 10-minute fault phase.
func BenchmarkSchedule(b *testing.B) {
	set := New(Env{})
	o := scheduleOpts()
	o.Faults = 10 * time.Minute
	for b.Loop() {
		if _, err := Schedule(NewRand(1), set, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJumpClock times one clock jump (the Lua script) on a node
// holding 10,000 keys with a TTL; the node is blocked for that long.
func BenchmarkJumpClock(b *testing.B) {
	c := clustertest.StartWith(b, clustertest.Options{Nodes: 1, SkipIfMissing: true})
	addr, _ := c.AdminAddr("n1")
	rdb := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	defer rdb.Close()
	ctx := context.Background()
	pipe := rdb.Pipeline()
	for i := range 10000 {
		pipe.Set(ctx, fmt.Sprintf("k%d", i), "v", time.Hour)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		by := time.Millisecond // alternate so TTLs stay put
		if i%2 == 1 {
			by = -by
		}
		if _, _, err := JumpClock(ctx, addr, by); err != nil {
			b.Fatal(err)
		}
	}
}
