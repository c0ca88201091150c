package python_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/clients/python"
)

// node is the tests' shared redis-server; tests that stop servers start
// their own.
var (
	node   *redisServer
	keySeq atomic.Int64
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s, err := startRedis(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "clients/python tests:", err)
		os.Exit(2)
	}
	node = s
	code := m.Run()
	s.Stop()
	os.Exit(code)
}

// needPython skips the test when no python3 imports redis-py: the one
// reason these tests may skip.
func needPython(t testing.TB) {
	t.Helper()
	if _, err := python.Command("py-seed-single"); errors.Is(err, python.ErrNoPython) {
		t.Skipf("%v", err)
	} else if err != nil {
		t.Fatal(err)
	}
}

// key is a fresh lock key.
func key(t *testing.T) string { return fmt.Sprintf("%s-%d", t.Name(), keySeq.Add(1)) }
