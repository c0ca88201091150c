// Package mylock is the worked example of lockstorm in a Go project's own
// CI (docs/ci/README.md, way 1): a lock of the project's own, here the
// smallest correct single-node one (SET NX PX, a token-checked release),
// tested with lockstorm.Test under client crashes and partitions on a real
// redis-server. CI runs it with `go test`, as any test; with
// LOCKSTORM_STORE set, the run's report stays there for the artifact.
package mylock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// myLock is "your lock": one Redis node, a random token per acquire.
type myLock struct {
	rdb redis.UniversalClient
	opt lockimpl.Options
}

var release = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)

func (m *myLock) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	for {
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, m.opt.NodeTimeout)
		ok, err := m.rdb.SetNX(c, key, token, m.opt.TTL).Result()
		cancel()
		if err != nil {
			return nil, err // unknown: the SET may have happened
		}
		if ok {
			return lockimpl.NewLease(key, token, 0, m.opt.TTL, m.opt.ValidUntil(start)), nil
		}
		select {
		case <-ctx.Done():
			return nil, lockimpl.ErrNotObtained // never sent a SET that won
		case <-time.After(m.opt.RetryMin):
		}
	}
}

func (m *myLock) Release(ctx context.Context, l *lockimpl.Lease) error {
	c, cancel := context.WithTimeout(ctx, m.opt.NodeTimeout)
	defer cancel()
	n, err := release.Run(c, m.rdb, []string{l.Key}, l.Token).Int()
	if err == nil && n == 0 {
		return lockimpl.ErrNotHeld
	}
	return err
}

// TestMyLockInCI fails when lockstorm finds a violation (or when the faults
// proved nothing: an unknown verdict), with the anomalies, their op
// indices and the seed to replay.
func TestMyLockInCI(t *testing.T) {
	lockstorm.Test(t, lockstorm.Config{
		Lock: "my-lock",
		NewLock: func(nodes []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
			return &myLock{rdb: nodes[0], opt: opt}, nil
		},
		Nodes:         1,
		TTL:           500 * time.Millisecond,
		Nemesis:       []string{"client-crash", "partition"},
		FaultInterval: time.Second,
		TimeLimit:     5 * time.Second,
	})
}
