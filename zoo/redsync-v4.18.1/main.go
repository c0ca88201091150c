// Command client is the lockstorm zoo's client for
// github.com/go-redsync/redsync/v4 v4.18.1 (Redlock over N independent
// nodes, go-redis v9 pools): the line protocol of docs/client-protocol.md
// on stdin and stdout (protocol.Main), one go-redis client per
// LOCKSTORM_NODES proxy.
//
// The adapter is lockimpl/adapters' Redsync, the one the in-process
// --lock redsync runs, built as redsync's README uses the library
// (adapters.NewRedsyncAtDefaults): NewMutex(key, WithExpiry(ttl)) with
// the library's defaults, the wait of its Lock between tries. README.md
// has the mapping and the failure classification.
package main

import (
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
		lock, err := adapters.NewRedsyncAtDefaults(clients, opt.TTL, name)
		return lock, closeAll, err
	})
}
