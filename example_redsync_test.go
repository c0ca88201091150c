package lockstorm_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// A lock written by others, go-redsync/redsync (Redlock), plugged in
// through its adapter and tested under partitions and latency on 5 real
// redis-servers. Use the same shape for your own lock.
func TestRedsyncUnderPartitions(t *testing.T) {
	res := lockstorm.Test(t, lockstorm.Config{
		Lock: "redsync",
		NewLock: func(nodes []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
			return adapters.NewRedsync(nodes, opt)
		},
		Nodes:         5,
		Clients:       3,
		TTL:           500 * time.Millisecond,
		Nemesis:       []string{"partition", "latency"},
		FaultInterval: time.Second,
		TimeLimit:     6 * time.Second,
		Seed:          7,
	})
	t.Logf("%d records; report in %s", res.Records, res.Dir)
}
