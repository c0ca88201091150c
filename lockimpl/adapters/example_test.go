package adapters_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// The redsync adapter: go-redsync/redsync/v4 driven through Locker, so
// every workload, nemesis and checker runs against it.
func ExampleNewRedsync() {
	var clients []redis.UniversalClient
	for _, a := range []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"} {
		clients = append(clients, lockimpl.NewClient(a))
	}
	var lock lockimpl.Locker
	lock, err := adapters.NewRedsync(clients, lockimpl.Options{TTL: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, err := lock.Acquire(context.Background(), "report")
	if err == nil {
		_ = lock.Release(context.Background(), lease)
	}
}

// The redislock adapter: bsm/redislock (single instance) through Locker
// and Extender.
func ExampleNewRedislock() {
	var lock interface {
		lockimpl.Locker
		lockimpl.Extender
	} = adapters.NewRedislock(lockimpl.NewClient("127.0.0.1:7001"), lockimpl.Options{TTL: time.Second})
	ctx := context.Background()
	lease, err := lock.Acquire(ctx, "cron")
	if err != nil {
		return
	}
	_ = lock.Extend(ctx, lease)
	_ = lock.Release(ctx, lease)
}
