package protocol_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// cl is the tests' cluster: one redis-server, clients c1 and c2 each with
// its own proxy.
var (
	cl     *local.Cluster
	keySeq atomic.Int64
)

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" { // a child of TestProtocolMain: a Go client
		protocol.Main("main-test", func(env protocol.Env, _ lockimpl.Options) (lockimpl.Locker, func(), error) {
			return env.NewLock("single")
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := local.Start(ctx, local.Config{Nodes: 1, Clients: []string{"c1", "c2"}})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "protocol tests: start cluster:", err)
		os.Exit(2)
	}
	cl = c
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

// key is a fresh lock key.
func key(t *testing.T) string { return fmt.Sprintf("%s-%d", t.Name(), keySeq.Add(1)) }

// env is the process-client environment of a client of the test cluster.
func env(t *testing.T, client string, ttl time.Duration) protocol.Env {
	t.Helper()
	addr, err := cl.Addr(client, "n1")
	if err != nil {
		t.Fatal(err)
	}
	e, err := protocol.ReadEnv(vars{
		protocol.EnvNodes: addr, protocol.EnvSlot: "0", protocol.EnvTTL: fmt.Sprint(ttl.Milliseconds()),
	}.get)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type vars map[string]string

func (v vars) get(k string) string { return v[k] }

// peer is the harness side of a client under test: its lines arrive on a
// channel so a test never blocks forever.
type peer struct {
	conn  *protocol.Conn
	w     io.Writer // the client's stdin, for raw lines
	lines chan received
	next  atomic.Int64
}

// received is one line read from the client, or the error reading it.
type received struct {
	line protocol.Line
	req  protocol.Request
	err  error
}

func newPeer(w io.Writer, r io.Reader) *peer {
	p := &peer{conn: protocol.NewConn(w, r), w: w, lines: make(chan received, 64)}
	go func() {
		defer close(p.lines)
		for {
			l, req, err := p.conn.Recv()
			if err == io.EOF {
				return
			}
			p.lines <- received{l, req, err}
		}
	}()
	return p
}

// recv is the next line, failing the test after 5s.
func (p *peer) recv(t *testing.T) received {
	t.Helper()
	select {
	case r, ok := <-p.lines:
		if !ok {
			t.Fatal("client closed its stdout")
		}
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no line from the client within 5s")
	}
	return received{}
}

// call sends a request with a fresh id and returns its answer, skipping
// events.
func (p *peer) call(t *testing.T, req protocol.Request) protocol.Answer {
	t.Helper()
	req.ID = p.next.Add(1)
	if err := p.conn.Send(req); err != nil {
		t.Fatal(err)
	}
	for {
		r := p.recv(t)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.line.Answer != nil {
			if r.req.ID != req.ID {
				t.Fatalf("answer to %d, want %d", r.req.ID, req.ID)
			}
			return *r.line.Answer
		}
	}
}

// serve runs lock behind Serve on pipes; the log is returned.
func serve(t *testing.T, lock lockimpl.Locker, cfg protocol.Config) (*peer, *syncBuffer) {
	reqR, reqW := io.Pipe()
	ansR, ansW := io.Pipe()
	log := &syncBuffer{}
	cfg.Log = log
	done := make(chan error, 1)
	go func() {
		done <- protocol.Serve(context.Background(), reqR, ansW, lock, cfg)
		ansW.Close()
	}()
	t.Cleanup(func() {
		reqW.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return newPeer(reqW, ansR), log
}

// newLock builds a named lock for a client of the test cluster.
func newLock(t *testing.T, name, client string, ttl time.Duration) (lockimpl.Locker, protocol.Env) {
	t.Helper()
	e := env(t, client, ttl)
	lock, closeLock, err := e.NewLock(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeLock)
	return lock, e
}

// syncBuffer is a log safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A binary names the modules it was built with; one it was not built
// with is unknown.
func TestModuleVersion(t *testing.T) {
	if v := protocol.ModuleVersion("github.com/no/such/module"); v != "(version unknown)" {
		t.Errorf("ModuleVersion of a module not in the build: %q", v)
	}
}
