package protocol

import (
	"bufio"
	"fmt"
	"io"
	"sync"
)

// Conn is the harness side of one client process: requests to its stdin,
// answers and events from its stdout, each answer matched to its request
// (Pending).
type Conn struct {
	wmu     sync.Mutex
	w       io.Writer
	sc      *bufio.Scanner
	pending *Pending
}

// NewConn talks to a client that reads w and writes r.
func NewConn(w io.Writer, r io.Reader) *Conn {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &Conn{w: w, sc: sc, pending: NewPending()}
}

// Send validates req, records it as awaiting its answer and writes it.
func (c *Conn) Send(req Request) error {
	if err := req.Validate(); err != nil {
		return err
	}
	if err := c.pending.Sent(req); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(Encode(req)); err != nil {
		return fmt.Errorf("protocol: write request %d: %w", req.ID, err)
	}
	return nil
}

// Recv reads the next line: an event, or an answer with the request it
// answers. A malformed line, an answer to an unknown id or a second
// answer to an id is an error; io.EOF means the client closed its stdout.
// One goroutine at a time may call Recv.
func (c *Conn) Recv() (Line, Request, error) {
	if !c.sc.Scan() {
		if err := c.sc.Err(); err != nil {
			return Line{}, Request{}, fmt.Errorf("protocol: read: %w", err)
		}
		return Line{}, Request{}, io.EOF
	}
	l, err := DecodeLine(c.sc.Bytes())
	if err != nil || l.Answer == nil {
		return l, Request{}, err
	}
	req, err := c.pending.Answered(*l.Answer)
	return l, req, err
}

// Open is how many sent requests await their answer.
func (c *Conn) Open() int { return c.pending.Open() }
