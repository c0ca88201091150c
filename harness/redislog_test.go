package harness

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A go-redis client that cannot dial logs "failed to dial" (on a context
// of its own); while a run is going the line lands in its lockstorm.log,
// not on the terminal.
func TestGoRedisLinesGoToTheRunLog(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	clustertest.Must(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	dir := t.TempDir()
	l, err := openLog(dir, nil)
	clustertest.Must(t, err)
	ctx, unlog := withRunLog(context.Background(), l)
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatalf("PING %s answered; want a dial error", addr)
	}
	unlog()
	l.close()
	b := storetest.Read(t, dir, store.LogFile)
	if !strings.Contains(b, "go-redis: connection pool: failed to dial") {
		t.Fatalf("lockstorm.log has no go-redis line:\n%s", b)
	}
}
