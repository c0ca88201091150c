package python_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server process on 127.0.0.1 for the tests: no
// persistence, its own port.
type redisServer struct {
	Addr   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process is reaped
	dir    string
	// C is a client of the server, for checking what the locks stored.
	C *redis.Client
}

// startRedis starts a redis-server on a free port and waits until it
// answers PING.
func startRedis(ctx context.Context) (*redisServer, error) {
	var last error
	for range 3 { // a port found free may be taken before redis binds it
		s, err := tryStartRedis(ctx)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

func tryStartRedis(ctx context.Context) (*redisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lockstorm-python-test-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start redis-server (apt-get install redis-server, or make deps): %w", err)
	}
	s := &redisServer{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, exited: make(chan struct{}), dir: dir}
	s.C = redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: time.Second})
	go func() { cmd.Wait(); close(s.exited) }()
	for {
		pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		err := s.C.Ping(pctx).Err()
		cancel()
		if err == nil {
			return s, nil
		}
		select {
		case <-s.exited:
			s.C.Close()
			os.RemoveAll(dir)
			return nil, fmt.Errorf("redis-server on port %d exited: %w", port, err)
		case <-ctx.Done():
			s.Stop()
			return nil, errors.Join(ctx.Err(), err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Stop kills the server (a crash, as far as its clients can tell).
func (s *redisServer) Stop() {
	s.C.Close()
	s.cmd.Process.Kill()
	<-s.exited
	os.RemoveAll(s.dir)
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
