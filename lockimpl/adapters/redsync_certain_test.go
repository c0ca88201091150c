package adapters_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
)

// RedsyncCertain on the errors redsync v4.18.1 builds (actOnPoolsAsync
// joins one per node), over 5 nodes (quorum 3): the rule the tests on real
// nodes (redsync_test.go) pin case by case.
func TestRedsyncCertain(t *testing.T) {
	taken := func(i int) error { return &redsync.ErrNodeTaken{Node: i} }
	lost := func(i int) error { return &redsync.RedisError{Node: i, Err: io.EOF} } // sent, no answer
	unsent := func(i int) error { return &redsync.RedisError{Node: i, Err: redis.ErrClosed} }
	expired := redsync.ErrLockAlreadyExpired
	cases := []struct {
		name             string
		err              error
		acquire, release bool // certain as an acquire (or extend), as a release
	}{
		{"ErrTaken", &redsync.ErrTaken{Nodes: []int{0, 1, 2}}, true, true},
		{"ErrFailed: a quorum granted too late", redsync.ErrFailed, false, false},
		{"ErrExtendFailed", redsync.ErrExtendFailed, false, false},
		{"3 taken, 2 lost", errors.Join(taken(0), taken(1), taken(2), lost(3), lost(4)), true, true},
		{"2 taken, 2 lost (1 granted)", errors.Join(taken(0), taken(1), lost(2), lost(3)), false, false},
		{"2 taken (3 granted too late)", errors.Join(taken(0), taken(1)), false, false},
		{"2 taken, 1 never sent (2 acted)", errors.Join(taken(0), taken(1), unsent(2)), true, false},
		{"2 expired, 3 never sent", errors.Join(expired, expired, unsent(2), unsent(3), unsent(4)), true, true},
		{"3 expired (2 deleted)", errors.Join(expired, expired, expired), true, true},
		{"1 taken, 2 lost (2 deleted)", errors.Join(taken(0), lost(1), lost(2)), false, false},
		{"wrapped", fmt.Errorf("redsync: %w", errors.Join(taken(0), taken(1), taken(2))), true, true},
	}
	for _, c := range cases {
		if got := adapters.RedsyncCertain(c.err, 5, false, lockimpl.WalkErrors); got != c.acquire {
			t.Errorf("%s: certain as an acquire = %v, want %v", c.name, got, c.acquire)
		}
		if got := adapters.RedsyncCertain(c.err, 5, true, lockimpl.WalkErrors); got != c.release {
			t.Errorf("%s: certain as a release = %v, want %v", c.name, got, c.release)
		}
	}
}
