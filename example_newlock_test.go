package lockstorm_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// A lock of one's own, plugged in with nothing but the root package and
// lockimpl: here lockimpl's own single-instance lock stands in for it,
// under one scripted holder pause.
func Example_ownLock() {
	var newLock lockstorm.NewLockFunc = func(nodes []lockstorm.RedisClient, opt lockimpl.Options) (lockimpl.Locker, error) {
		return lockimpl.NewSingle(nodes[0], opt), nil // your adapter here
	}
	plan := lockstorm.Scripted(2*time.Second, lockstorm.Step{At: time.Second, Duration: time.Second,
		Fault: lockstorm.Fault{Kind: "client-pause", Clients: []string{"@holder"}}})
	res, err := lockstorm.Run(context.Background(), lockstorm.Config{
		Lock: "mine", NewLock: newLock, Nodes: 1, Clients: 3, TTL: 500 * time.Millisecond,
		Workloads: lockstorm.WorkloadOptions{HoldMin: 50 * time.Millisecond},
		Plan:      &plan, TimeLimit: plan.End,
	})
	if err != nil {
		fmt.Println("run:", err)
		return
	}
	fmt.Println(res.Verdict.Valid, res.Dir)
}
