// Package resource is the thing a lock protects: a small TCP service, run
// by the harness and reached by clients through their own proxies, that
// holds named registers. In fencing mode it rejects any write, and any read
// that carries a token, whose fencing token is lower than the highest it
// has accepted for that key, as a storage service that checks fencing
// tokens would. A fenced read raises that high-water mark like a write:
// once a holder with token t has read, no holder with a lower token can
// read or write the key, so a read-modify-write by t cannot interleave with
// a stale holder's (see the README, "What fencing protects"). It logs every
// write and every fenced read, accepted or rejected, with its token, so
// checkers can count stale operations.
//
// The protocol is one text line per request and per reply:
//
//	PING                     -> PONG
//	READ key                 -> OK value                (unfenced: never rejected, not logged)
//	READ key fence           -> OK value | STALE maxfence
//	WRITE key value fence    -> OK | STALE maxfence
//	ENTER key fence          -> OK callers | STALE maxfence   (api: a caller enters)
//	LEAVE key                -> OK callers                     (the caller leaves)
package resource

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Write is one write, enter or fenced read the resource received.
type Write struct {
	// Time is when the server handled it, on the Clock of the server's Config.
	Time int64  `json:"time"`
	Key  string `json:"key"`
	// Value is the value written, or for an accepted read the value read.
	Value int64 `json:"value"`
	Fence int64 `json:"fence"`
	// Accepted is false when fencing rejected the write or read.
	Accepted bool `json:"accepted"`
	// Stale is true when Fence was lower than the highest token accepted
	// before it, by a write or a fenced read (whether or not it was then
	// accepted).
	Stale bool `json:"stale"`
	// Callers is, for an enter, the number of callers inside after it.
	Callers int  `json:"callers,omitempty"`
	Enter   bool `json:"enter,omitempty"`
	// Read marks a fenced read (READ key fence): it changed no value but,
	// accepted, raised the key's highest token to Fence.
	Read bool `json:"read,omitempty"`
}

// Config sets up a Server.
type Config struct {
	// Fencing makes the server reject writes and fenced reads whose token
	// is below the highest token it has accepted for the key (by a write
	// or a fenced read). A write's token 0 means "no token" and is always
	// stale once any token was accepted; a read without a token is served
	// and not logged. Without Fencing every request is served, and the
	// log still marks stale ones.
	Fencing bool
	// Clock returns the current time in ns on the run's clock; nil uses
	// time since the server started.
	Clock func() int64
}

// Server is a running resource. Its methods are safe for concurrent use.
type Server struct {
	cfg Config
	ln  net.Listener

	mu      sync.Mutex
	values  map[string]int64
	max     map[string]int64 // highest accepted fence per key (writes and fenced reads)
	callers map[string]int
	writes  []Write
	spill   spill // the log streamed to a file, when Spill was called
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// Start listens on a free 127.0.0.1 port and serves until Close.
func Start(cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("resource: listen: %w", err)
	}
	if cfg.Clock == nil {
		t0 := time.Now()
		cfg.Clock = func() int64 { return int64(time.Since(t0)) }
	}
	s := &Server{cfg: cfg, ln: ln, values: map[string]int64{}, max: map[string]int64{},
		callers: map[string]int{}, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Fencing reports whether the server enforces fencing tokens.
func (s *Server) Fencing() bool { return s.cfg.Fencing }

// Value is the current value of a key (0 if never written).
func (s *Server) Value(key string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[key]
}

// Writes returns a copy of every write, enter and fenced read received, in
// order; after Spill, only those still in memory (see Whole).
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// Close stops listening, closes every connection and waits for handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		reply := s.handle(strings.Fields(line))
		if _, err := w.WriteString(reply + "\n"); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

func (s *Server) handle(args []string) string {
	if len(args) == 0 {
		return errSyntax.Error()
	}
	ints := func(from int) ([]int64, bool) { return parseInts(args[from:]) }
	switch cmd := strings.ToUpper(args[0]); {
	case cmd == "PING" && len(args) == 1:
		return "PONG"
	case cmd == "READ" && len(args) == 2:
		return okReply(s.Value(args[1]))
	case cmd == "READ" && len(args) == 3:
		v, ok := ints(2)
		if !ok {
			return errSyntax.Error()
		}
		if v[0] == 0 {
			return okReply(s.Value(args[1]))
		}
		return s.read(args[1], v[0])
	case cmd == "WRITE" && len(args) == 4:
		v, ok := ints(2)
		if !ok {
			return errSyntax.Error()
		}
		return s.write(args[1], v[0], v[1], false)
	case cmd == "ENTER" && len(args) == 3:
		v, ok := ints(2)
		if !ok {
			return errSyntax.Error()
		}
		return s.write(args[1], 0, v[0], true)
	case cmd == "LEAVE" && len(args) == 2:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.callers[args[1]] > 0 {
			s.callers[args[1]]--
		}
		return okReply(int64(s.callers[args[1]]))
	}
	return errSyntax.Error()
}

// admit applies the fencing rule, under s.mu, to a request on key carrying
// fence: stale says the token is below the key's highest accepted one;
// reject is the STALE reply when the server enforces fencing and the
// token is stale ("" otherwise: accepted, and the key's highest token is
// raised to fence, so no lower token is accepted afterwards).
func (s *Server) admit(key string, fence int64) (stale bool, reject string) {
	max, seen := s.max[key]
	stale = seen && fence < max
	if stale && s.cfg.Fencing {
		return true, staleReply(max)
	}
	if !seen || fence > max {
		s.max[key] = fence
	}
	return stale, ""
}

// write applies a write or an enter under the fencing rule and logs it.
func (s *Server) write(key string, value, fence int64, enter bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	stale, reject := s.admit(key, fence)
	wr := Write{Time: s.cfg.Clock(), Key: key, Value: value, Fence: fence, Stale: stale, Enter: enter, Accepted: reject == ""}
	if reject != "" {
		s.logLocked(wr)
		return reject
	}
	if enter {
		s.callers[key]++
		wr.Callers = s.callers[key]
		s.logLocked(wr)
		return okReply(int64(wr.Callers))
	}
	s.values[key] = value
	s.logLocked(wr)
	return "OK"
}

// read serves a fenced read under the fencing rule (see admit) and logs
// it.
func (s *Server) read(key string, fence int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	stale, reject := s.admit(key, fence)
	r := Write{Time: s.cfg.Clock(), Key: key, Fence: fence, Stale: stale, Read: true, Accepted: reject == ""}
	if reject != "" {
		s.logLocked(r)
		return reject
	}
	r.Value = s.values[key]
	s.logLocked(r)
	return okReply(r.Value)
}
