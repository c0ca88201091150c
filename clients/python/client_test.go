package python_test

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/protocol"
)

// waitLine bounds every wait for a line from a client.
const waitLine = 5 * time.Second

// client is the harness side of one Python client process, driven through
// protocol.Conn as the harness drives it.
type client struct {
	t      testing.TB
	cmd    *exec.Cmd
	conn   *protocol.Conn
	stdin  io.Closer
	stdinW io.Writer // the client's stdin, for raw lines
	stderr *syncBuffer
	next   atomic.Int64
	lines  chan received
	early  map[int64]protocol.Answer // answers read while waiting for another id
	events []protocol.Event          // events read so far
	killed bool
}

// received is one line from the client, or the error reading it.
type received struct {
	line protocol.Line
	req  protocol.Request
	err  error
}

// startClient runs the named Python lock as a process client of the given
// nodes with TTL ttlMillis; env adds or overrides LOCKSTORM_* variables.
// When the test ends its stdin is closed and it must exit cleanly.
func startClient(t testing.TB, lock string, nodes []string, ttlMillis int, env ...string) *client {
	t.Helper()
	needPython(t)
	argv, err := python.Command(lock)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir() // the scripts must not depend on the working directory
	cmd.Env = append(os.Environ(), protocol.EnvNodes+"="+strings.Join(nodes, ","), protocol.EnvSlot+"=0",
		protocol.EnvTTL+"="+strconv.Itoa(ttlMillis))
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, cmd: cmd, stdin: stdin, stdinW: stdin, stderr: &syncBuffer{}, lines: make(chan received, 256), early: map[int64]protocol.Answer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.conn = protocol.NewConn(stdin, stdout)
	go func() {
		defer close(c.lines)
		for {
			l, req, err := c.conn.Recv()
			if err == io.EOF {
				return
			}
			c.lines <- received{l, req, err}
		}
	}()
	t.Cleanup(c.stop)
	return c
}

// stop closes stdin and waits for a clean exit (a killed client: for its end).
func (c *client) stop() {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !c.killed {
			c.t.Errorf("client exited: %v\nstderr:\n%s", err, c.stderr)
		}
	case <-time.After(waitLine):
		c.cmd.Process.Kill()
		<-done
		c.t.Errorf("client still running %v after its stdin closed\nstderr:\n%s", waitLine, c.stderr)
	}
}

// kill ends the client with SIGKILL, as a crash, and waits until it is gone.
func (c *client) kill() {
	c.killed = true
	c.cmd.Process.Signal(syscall.SIGKILL)
	for range c.lines { // its stdout closes when it dies
	}
}

// send writes a request with a fresh id and returns the id.
func (c *client) send(req protocol.Request) int64 {
	c.t.Helper()
	req.ID = c.next.Add(1)
	if err := c.conn.Send(req); err != nil {
		c.t.Fatal(err)
	}
	return req.ID
}

// answer waits for the answer to id, keeping events and other answers.
func (c *client) answer(id int64) protocol.Answer {
	c.t.Helper()
	if a, ok := c.early[id]; ok {
		delete(c.early, id)
		return a
	}
	timeout := time.After(waitLine)
	for {
		select {
		case r, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("client closed its stdout awaiting answer %d\nstderr:\n%s", id, c.stderr)
			}
			if r.err != nil {
				c.t.Fatal(r.err)
			}
			if e := r.line.Event; e != nil {
				c.events = append(c.events, *e)
				continue
			}
			if r.req.ID == id {
				return *r.line.Answer
			}
			c.early[r.req.ID] = *r.line.Answer
		case <-timeout:
			c.t.Fatalf("no answer to request %d within %v\nstderr:\n%s", id, waitLine, c.stderr)
		}
	}
}

// answered reports whether the answer to id has arrived, without waiting
// for one (lines already received are read).
func (c *client) answered(id int64) bool {
	c.t.Helper()
	for {
		select {
		case r, ok := <-c.lines:
			if !ok {
				return false
			}
			if r.err != nil {
				c.t.Fatal(r.err)
			}
			if e := r.line.Event; e != nil {
				c.events = append(c.events, *e)
			} else {
				c.early[r.req.ID] = *r.line.Answer
			}
		default:
			_, ok := c.early[id]
			return ok
		}
	}
}

// call sends req and waits for its answer.
func (c *client) call(req protocol.Request) protocol.Answer {
	c.t.Helper()
	return c.answer(c.send(req))
}

// acquire, release and extend are calls of key.
func (c *client) acquire(key string, ttlMillis, timeoutMillis int64) protocol.Answer {
	c.t.Helper()
	return c.call(protocol.Request{Op: protocol.OpAcquire, Key: key, TTLMillis: ttlMillis, TimeoutMillis: timeoutMillis})
}

func (c *client) release(key, token string) protocol.Answer {
	c.t.Helper()
	return c.call(protocol.Request{Op: protocol.OpRelease, Key: key, Token: token})
}

func (c *client) extend(key, token string) protocol.Answer {
	c.t.Helper()
	return c.call(protocol.Request{Op: protocol.OpExtend, Key: key, Token: token})
}

// waitEvent waits up to d for an event of kind for token, reading lines.
func (c *client) waitEvent(kind, token string, d time.Duration) (protocol.Event, bool) {
	c.t.Helper()
	deadline := time.After(d)
	for i := 0; ; {
		for ; i < len(c.events); i++ {
			if e := c.events[i]; e.Event == kind && e.Token == token {
				return e, true
			}
		}
		select {
		case r, ok := <-c.lines:
			if !ok {
				return protocol.Event{}, false
			}
			if r.err != nil {
				c.t.Fatal(r.err)
			}
			if e := r.line.Event; e != nil {
				c.events = append(c.events, *e)
			} else {
				c.early[r.req.ID] = *r.line.Answer
			}
		case <-deadline:
			return protocol.Event{}, false
		}
	}
}

// count is how many events of kind for token were read so far.
func (c *client) count(kind, token string) int {
	n := 0
	for _, e := range c.events {
		if e.Event == kind && e.Token == token {
			n++
		}
	}
	return n
}

// syncBuffer is a stderr log safe for concurrent use.
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
