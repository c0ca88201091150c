package protocol

import (
	"fmt"
	"sync"
)

// Pending is the harness side's record of the requests sent to one client
// process and not yet answered: every answer must match a sent id, once.
// Ids must increase from one request to the next, so the record needs
// memory only for the requests awaiting their answer, however long the
// client runs.
type Pending struct {
	mu   sync.Mutex
	open map[int64]Request
	last int64 // the highest id sent
}

// NewPending returns an empty record.
func NewPending() *Pending {
	return &Pending{open: map[int64]Request{}}
}

// Sent records a request written to the client. An id not above every id
// sent before is an error.
func (p *Pending) Sent(r Request) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.ID <= p.last {
		return fmt.Errorf("protocol: request id %d used twice or out of order (ids must increase; the last was %d)", r.ID, p.last)
	}
	p.open[r.ID], p.last = r, r.ID
	return nil
}

// Answered matches an answer to its request: an id never sent, or one
// no longer awaiting its answer, is an error.
func (p *Pending) Answered(a Answer) (Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.open[a.ID]
	switch {
	case ok:
		delete(p.open, a.ID)
		return r, nil
	case a.ID > 0 && a.ID <= p.last:
		return Request{}, fmt.Errorf("protocol: duplicate answer to request %d (it awaits no answer)", a.ID)
	default:
		return Request{}, fmt.Errorf("protocol: answer to unknown request id %d", a.ID)
	}
}

// Open is how many requests await their answer.
func (p *Pending) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open)
}
