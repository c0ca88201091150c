// Package adapters drives locks written by others through lockimpl.Locker
// and lockimpl.Extender: go-redsync/redsync (Redlock, "redsync") and
// bsm/redislock (single instance, "redislock"), apart from lockimpl so
// that the core locks pull neither library. The zoo's Go entries of these
// libraries are short mains over them. Importing the package registers
// both with lockimpl.Register (the harness does, for every entry point).
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
