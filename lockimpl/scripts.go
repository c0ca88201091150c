package lockimpl

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts, one file each under lua/. redis.Script runs them by
// EVALSHA and falls back to EVAL when the server does not know them yet.
var (
	//go:embed lua/release.lua
	releaseSrc string
	//go:embed lua/extend.lua
	extendSrc string
	//go:embed lua/fenced_acquire.lua
	fencedAcquireSrc string
	//go:embed lua/fence_ratchet.lua
	fenceRatchetSrc string
	//go:embed lua/fair_acquire.lua
	fairAcquireSrc string
	//go:embed lua/fair_leave.lua
	fairLeaveSrc string
	//go:embed lua/fairnaive_acquire.lua
	fairNaiveAcquireSrc string

	releaseScript          = redis.NewScript(releaseSrc)
	extendScript           = redis.NewScript(extendSrc)
	fencedAcquireScript    = redis.NewScript(fencedAcquireSrc)
	fenceRatchetScript     = redis.NewScript(fenceRatchetSrc)
	fairAcquireScript      = redis.NewScript(fairAcquireSrc)
	fairLeaveScript        = redis.NewScript(fairLeaveSrc)
	fairNaiveAcquireScript = redis.NewScript(fairNaiveAcquireSrc)
)
