package lockstorm

import (
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// The types a Config names, so that a test of one's own lock needs only
// this package and lockimpl.
type (
	NewLockFunc     = config.NewLockFunc    // Config.NewLock
	RedisClient     = redis.UniversalClient // one node's client a NewLockFunc is handed
	WorkloadOptions = workloads.Options     // Config.Workloads
	Plan            = nemesis.Plan          // a scripted fault schedule (Config.Plan)
	Step            = nemesis.Step
	Fault           = nemesis.Fault
	Persistence     = cluster.Persistence
	External        = config.External // the external provider's endpoints
	Progress        = config.Progress // Config.OnProgress
)

// Scripted builds a Plan from explicit steps.
var Scripted = nemesis.Scripted
