package harness

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
)

// versions lists lockstorm's, Go's and (when nodes run) Redis's versions.
func versions(c cluster.Cluster, cfg config.Config) map[string]string {
	v := map[string]string{"go": runtime.Version(), "lock": cfg.Lock}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["lockstorm"] = Version()
		for _, d := range bi.Deps {
			switch {
			case strings.HasPrefix(d.Path, "github.com/redis/go-redis"),
				strings.HasPrefix(d.Path, "github.com/go-redsync/redsync"),
				strings.HasPrefix(d.Path, "github.com/bsm/redislock"),
				strings.HasPrefix(d.Path, "github.com/anishathalye/porcupine"):
				v[d.Path] = d.Version
			}
		}
	}
	if c != nil && len(c.Nodes()) > 0 {
		if addr, err := c.AdminAddr(c.Nodes()[0]); err == nil {
			rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if info, err := rc.Info(ctx, "server").Result(); err == nil {
				for _, line := range strings.Split(info, "\n") {
					if after, ok := strings.CutPrefix(line, "redis_version:"); ok {
						v["redis"] = strings.TrimSpace(after)
					}
				}
			}
			cancel()
			rc.Close()
		}
	}
	return v
}
