package lockimpl_test

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// On a Redis Cluster a single-node lock gets one cluster client for the
// whole cluster and a hash-tagged key; the checks refuse a lock that
// needs independent nodes or whose keys would straddle slots.
func ExampleCheckSlots() {
	const name, key = "fenced", "lock:{lockstorm}"
	if !lockimpl.ClusterCapable(name) {
		fmt.Println(name+":", lockimpl.ErrNotOnCluster)
		return
	}
	c := lockimpl.NewClusterClient("127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003")
	defer c.Close()
	lock, err := lockimpl.New(name, []redis.UniversalClient{c}, lockimpl.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := lockimpl.CheckSlots(lock, key); err != nil {
		fmt.Println(err) // wraps lockimpl.ErrCrossSlot, naming each key and its slot
		return
	}
	fmt.Println(lock.(lockimpl.KeyLister).Keys(key))
	// Output: [lock:{lockstorm} lock:{lockstorm}:fence]
}
