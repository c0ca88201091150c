// Package adapters drives locks written by others through lockimpl.Locker
// and lockimpl.Extender: go-redsync/redsync (Redlock, "redsync") and
// bsm/redislock (single instance, "redislock"). They live apart from
// lockimpl so that importing the core locks does not pull either library.
// The zoo's Go entries of the same library versions (zoo/redsync-v4.18.1,
// zoo/redislock-v0.9.4 and -v0.10.0) are short mains over these adapters,
// and the redsync v4.12 entries classify failures by RedsyncCertain: one
// failure classification per library.
//
// Importing the package registers both with lockimpl.Register, so
// lockimpl.New (and the harness's --lock) builds them by name; the harness
// imports it, so every lockstorm entry point knows them.
package adapters

import (
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// The --lock names of the adapters.
const (
	nameRedsync   = "redsync"
	nameRedislock = "redislock"
)

func init() {
	lockimpl.Register(nameRedsync, true, func(c []redis.UniversalClient, o lockimpl.Options) (lockimpl.Locker, error) {
		return NewRedsync(c, o)
	})
	lockimpl.Register(nameRedislock, false, func(c []redis.UniversalClient, o lockimpl.Options) (lockimpl.Locker, error) {
		return NewRedislock(c[0], o), nil
	})
}
