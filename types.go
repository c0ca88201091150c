package lockstorm

import (
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// The types a Config names, so that a test of one's own lock needs only
// this package and lockimpl (and never the internal packages they live
// in, which may move).
type (
	// NewLockFunc builds the lock under test (Config.NewLock) from one
	// Redis client per node, each behind its own fault-injecting proxy.
	NewLockFunc = config.NewLockFunc
	// RedisClient is one node's client a NewLockFunc is handed.
	RedisClient = redis.UniversalClient
	// WorkloadOptions are the workload's settings (Config.Workloads):
	// hold and think times, timeouts, the leader's heartbeat.
	WorkloadOptions = workloads.Options
	// Plan is a scripted fault schedule (Config.Plan), Step one fault of
	// it at a time, Fault the fault as plain data.
	Plan  = nemesis.Plan
	Step  = nemesis.Step
	Fault = nemesis.Fault
	// Persistence is the Redis nodes' persistence (Config.Persistence).
	Persistence = cluster.Persistence
	// External names the endpoints of the external provider
	// (Config.External).
	External = config.External
	// Progress is a running test's progress (Config.OnProgress).
	Progress = config.Progress
)

// Scripted builds a Plan from explicit steps: the final heal comes when
// the last one stops, and the run ends recovery later.
var Scripted = nemesis.Scripted
