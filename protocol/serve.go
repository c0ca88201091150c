package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Config tunes Serve.
type Config struct {
	// TTL is the lock's lease time-to-live: an acquire whose ttl_ms
	// differs answers fail. 0 checks nothing.
	TTL time.Duration
	// Timeout bounds a request that carries no timeout_ms. Default 1s.
	Timeout time.Duration
	// Log receives one line per protocol error (a malformed line, a
	// duplicate id). Default: discarded.
	Log io.Writer
}

// server is one Serve call's state.
type server struct {
	lock lockimpl.Locker
	cfg  Config

	wmu sync.Mutex // one line at a time on w
	w   io.Writer

	mu       sync.Mutex
	inflight map[int64]bool
	leases   map[string]*held // by token
	wg       sync.WaitGroup
}

// Serve runs lock behind the protocol: it reads requests from r until EOF
// or ctx ends, runs each on its own goroutine, and writes exactly one
// answer per request id to w, plus a renewed event for every renewal the
// lock makes by itself (Lease.SetValidity outside an extend request) and
// a lost event when a lease's Done closes for any reason but its release.
// A malformed line is logged and, when its id can be read, answered fail.
// It returns after every request in progress has been answered: nil at
// EOF, else the read or context error.
func Serve(ctx context.Context, r io.Reader, w io.Writer, lock lockimpl.Locker, cfg Config) error {
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &server{lock: lock, cfg: cfg, w: w, inflight: map[int64]bool{}, leases: map[string]*held{}}
	defer s.wg.Wait()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case lines <- append([]byte(nil), sc.Bytes()...):
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			return err
		case line := <-lines:
			s.accept(ctx, line)
		}
	}
}

// accept starts a request line, or rejects it.
func (s *server) accept(ctx context.Context, line []byte) {
	req, err := DecodeRequest(line)
	if err != nil {
		s.logf("%v", err)
		var probe struct{ ID int64 }
		if json.Unmarshal(line, &probe) == nil && probe.ID > 0 && s.begin(probe.ID) {
			s.answer(Answer{ID: probe.ID, Type: TypeFail, Error: err.Error()})
		}
		return
	}
	if !s.begin(req.ID) {
		s.logf("protocol: request id %d is already in progress: line ignored", req.ID)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.answer(s.run(ctx, req))
	}()
}

// begin marks id in progress; false if it already is.
func (s *server) begin(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[id] {
		return false
	}
	s.inflight[id] = true
	return true
}

// run performs a request and returns its answer.
func (s *server) run(ctx context.Context, req Request) Answer {
	timeout := s.cfg.Timeout
	if req.TimeoutMillis > 0 {
		timeout = time.Duration(req.TimeoutMillis) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch req.Op {
	case OpAcquire:
		return s.acquire(ctx, req)
	case OpRelease:
		return s.release(ctx, req)
	default:
		return s.extend(ctx, req)
	}
}

// answer writes a and ends its id.
func (s *server) answer(a Answer) {
	s.send(a)
	s.mu.Lock()
	delete(s.inflight, a.ID)
	s.mu.Unlock()
}

// send writes one line.
func (s *server) send(v any) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.w.Write(Encode(v)); err != nil {
		s.logf("protocol: write: %v", err)
	}
}

func (s *server) logf(format string, a ...any) {
	fmt.Fprintf(s.cfg.Log, format+"\n", a...)
}

// outcome is the answer to an operation that returned err: ok for nil,
// fail when err wraps certain (nothing was done), else info — the
// classification the harness's workers apply to in-process locks.
func outcome(id int64, err, certain error) Answer {
	switch {
	case err == nil:
		return Answer{ID: id, Type: TypeOK}
	case errors.Is(err, certain):
		return Answer{ID: id, Type: TypeFail, Error: err.Error()}
	default:
		return Answer{ID: id, Type: TypeInfo, Error: err.Error()}
	}
}

// remaining is the validity left on l, in whole milliseconds (0 when past).
func remaining(l *lockimpl.Lease) (ms, mono int64) { return until(l.Validity()) }

// until is the time left to v in whole ms (never negative), and
// CLOCK_MONOTONIC when it was measured (Answer.MonoNS).
func until(v time.Time) (ms, mono int64) {
	mono = MonoNow()
	return max(time.Until(v).Milliseconds(), 0), mono
}
