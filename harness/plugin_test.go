package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/workloads"
)

// watchdogLock is a correct single-node watchdog lock written the way a
// user would write one: it knows nothing of the harness beyond the
// lockimpl types. Its watchdog renews every RenewEvery and reports each
// renewal only through Lease.SetValidity (no Options.RenewHook).
type watchdogLock struct {
	c   redis.UniversalClient
	opt lockimpl.Options

	mu    sync.Mutex
	dogs  map[*lockimpl.Lease]func() // stops and waits for the watchdog
	fence int64
}

var (
	extendIfHeld = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	delIfHeld    = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
)

func (w *watchdogLock) Acquire(ctx context.Context, key string) (*lockimpl.Lease, error) {
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	for {
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, w.opt.NodeTimeout)
		ok, err := w.c.SetNX(cctx, key, token, w.opt.TTL).Result()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("watchdog lock: acquire %s: %w", key, err) // unknown
		}
		if ok {
			l := lockimpl.NewLease(key, token, 0, w.opt.TTL, w.opt.ValidUntil(start))
			w.startDog(l)
			return l, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", lockimpl.ErrNotObtained, ctx.Err())
		case <-time.After(w.opt.RetryMax):
		}
	}
}

func (w *watchdogLock) startDog(l *lockimpl.Lease) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.mu.Lock()
	w.dogs[l] = func() { cancel(); <-done }
	w.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(w.opt.RenewEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			start := time.Now()
			cctx, c := context.WithTimeout(ctx, w.opt.NodeTimeout)
			n, err := extendIfHeld.Run(cctx, w.c, []string{l.Key}, l.Token, w.opt.TTL.Milliseconds()).Int64()
			c()
			if err != nil || n == 0 {
				l.MarkLost(fmt.Errorf("%w: renewal: %v", lockimpl.ErrLost, err))
				return
			}
			l.SetValidity(w.opt.ValidUntil(start)) // the only thing it tells anyone
		}
	}()
}

func (w *watchdogLock) Release(ctx context.Context, l *lockimpl.Lease) error {
	w.mu.Lock()
	stop := w.dogs[l]
	delete(w.dogs, l)
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
	n, err := delIfHeld.Run(ctx, w.c, []string{l.Key}, l.Token).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

func countDetail(h history.History, detail string) int {
	n := 0
	for _, op := range h {
		if op.F == history.FExtend && op.Type == history.OK && strings.HasPrefix(op.Detail, detail) {
			n++
		}
	}
	return n
}

// A correct watchdog lock plugged in through NewLock that renews by
// Lease.SetValidity only: holds last 3 x TTL, so without its renewals in
// the history the exclusion checker would call every write invalid.
func TestWatchdogLockRenewingBySetValidityIsValid(t *testing.T) {
	ttl := 200 * time.Millisecond
	var got lockimpl.Options
	res := storetest.Run(t, Run, config.Config{
		NewLock: func(c []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
			got = opt
			return &watchdogLock{c: c[0], opt: opt, dogs: map[*lockimpl.Lease]func(){}}, nil
		},
		Nodes: 1, Clients: 3, TTL: ttl, TimeLimit: 3 * time.Second, Seed: 3, Store: t.TempDir(),
		Workloads: workloads.Options{HoldMin: 3 * ttl, HoldMax: 3 * ttl},
	})
	if got.NodeTimeout == 0 || got.RetryMax == 0 || got.DriftFactor == 0 || got.RenewEvery == 0 {
		t.Errorf("NewLock got options without defaults: %+v", got)
	}
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("a correct watchdog lock was judged %v:\n%s", res.Verdict.Valid, res.Verdict)
	}
	h := recordsOf(t, res)
	writes, observed := count(h, history.FWrite, history.OK), countDetail(h, "observed")
	if writes < 2 || observed < 2*writes {
		t.Fatalf("%d writes ok, %d observed renewals: the run did not exercise renewals", writes, observed)
	}
}

// Locks that record their renewals themselves (the renewable lock's
// RenewHook, the leader workload's Extend) are not recorded twice.
func TestRecordedRenewalsAreNotDoubled(t *testing.T) {
	ttl := 200 * time.Millisecond
	for _, tc := range []struct{ lock, workload string }{{"renewable", "counter"}, {"single", "leader"}} {
		t.Run(tc.lock+"/"+tc.workload, func(t *testing.T) {
			res := storetest.Run(t, Run, config.Config{Lock: tc.lock, Workload: tc.workload, Clients: 2, TTL: ttl,
				TimeLimit: 2 * time.Second, Seed: 3, Store: t.TempDir(),
				Workloads: workloads.Options{HoldMin: 3 * ttl, HoldMax: 3 * ttl}})
			if n := countDetail(recordsOf(t, res), "observed"); n != 0 {
				t.Errorf("%d renewals recorded twice (observed beside the lock's own record)", n)
			}
			if n := count(recordsOf(t, res), history.FExtend, history.OK); n == 0 {
				t.Errorf("no extends recorded at all")
			}
			if res.Verdict.Valid != checker.Valid {
				t.Fatalf("verdict %v:\n%s", res.Verdict.Valid, res.Verdict)
			}
		})
	}
}

// The options handed to NewLock are filled for the configured node count.
func TestNewLockGetsFilledOptions(t *testing.T) {
	var got lockimpl.Options
	_, err := Run(context.Background(), config.Config{
		NewLock: func(c []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
			got = opt
			return nil, errors.New("just looking")
		},
		Nodes: 3, Clients: 1, TTL: 500 * time.Millisecond, TimeLimit: time.Second, Store: t.TempDir(),
	})
	if err == nil {
		t.Fatal("a failing NewLock did not fail the run")
	}
	want := lockimpl.Options{TTL: 500 * time.Millisecond}.WithDefaults(3)
	if got.NodeTimeout != want.NodeTimeout || got.RetryMin != want.RetryMin || got.RetryMax != want.RetryMax ||
		got.DriftFactor != want.DriftFactor || got.RenewEvery != want.RenewEvery || got.WaiterTimeout != want.WaiterTimeout ||
		len(got.NodeNames) != 3 || got.RenewHook == nil {
		t.Fatalf("NewLock got %+v, want the defaults %+v for 3 nodes", got, want)
	}
}
