package harness

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// redisLog puts go-redis's log lines into lockstorm.log of the run whose
// context made the call, else of every run going; none going, they drop.
type redisLog struct{}

// runLogKey is the context key under which Run keeps its *runLog.
type runLogKey struct{}

// activeLogs holds the logs of the runs going in this process.
var activeLogs struct {
	sync.Mutex
	logs map[*runLog]struct{}
}

func init() { redis.SetLogger(redisLog{}) }

// withRunLog registers l as a running run's log and returns ctx carrying
// it, and the function that unregisters it.
func withRunLog(ctx context.Context, l *runLog) (context.Context, func()) {
	activeLogs.Lock()
	if activeLogs.logs == nil {
		activeLogs.logs = map[*runLog]struct{}{}
	}
	activeLogs.logs[l] = struct{}{}
	activeLogs.Unlock()
	return context.WithValue(ctx, runLogKey{}, l), func() {
		activeLogs.Lock()
		delete(activeLogs.logs, l)
		activeLogs.Unlock()
	}
}

// Printf logs one go-redis line (see redisLog).
func (redisLog) Printf(ctx context.Context, format string, v ...any) {
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	if ctx != nil {
		if l, ok := ctx.Value(runLogKey{}).(*runLog); ok {
			l.logf("go-redis: %s", msg)
			return
		}
	}
	activeLogs.Lock()
	defer activeLogs.Unlock()
	prefix := "go-redis:"
	if n := len(activeLogs.logs); n > 1 {
		prefix = fmt.Sprintf("go-redis (a client of one of %d runs in this process):", n)
	}
	for l := range activeLogs.logs {
		l.logf("%s %s", prefix, msg)
	}
}
