// Command client is the lockstorm zoo's client for
// github.com/go-redsync/redsync/v4 v4.18.1 (Redlock over N independent
// nodes, go-redis v9 pools): the line protocol of docs/client-protocol.md
// on stdin and stdout (protocol.Main), one go-redis client per
// LOCKSTORM_NODES proxy.
//
// The adapter is lockimpl/adapters' Redsync, the one the in-process
// --lock redsync runs, with redsync's defaults where the README leaves
// them: each round of node commands bounded by 5% of the expiry (its
// timeout factor), 1% drift, and between tries about its Lock's wait
// (50-250 ms). README.md has the mapping and the failure classification.
package main

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
	"github.com/lockstorm/lockstorm/protocol"
)

var name = "redsync " + protocol.ModuleVersion("github.com/go-redsync/redsync/v4")

func main() {
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		clients := make([]redis.UniversalClient, len(env.Nodes))
		for i, addr := range env.Nodes {
			// Configured as lockstorm's own locks are: context deadlines
			// honoured, no silent retries.
			clients[i] = redis.NewClient(lockimpl.ClientOptions(addr))
		}
		closeAll := func() {
			for _, c := range clients {
				c.Close()
			}
		}
		opt.NodeTimeout = opt.TTL / 20
		opt.RetryMin, opt.RetryMax = 50*time.Millisecond, 250*time.Millisecond
		lock, err := adapters.NewRedsync(clients, opt)
		return lock, closeAll, err
	})
}
