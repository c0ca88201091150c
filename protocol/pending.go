package protocol

import (
	"fmt"
	"sync"
)

// Pending is the harness side's record of the requests sent to one client
// process and not yet answered: every answer must match a sent id, once.
type Pending struct {
	mu       sync.Mutex
	open     map[int64]Request
	answered map[int64]bool
}

// NewPending returns an empty record.
func NewPending() *Pending {
	return &Pending{open: map[int64]Request{}, answered: map[int64]bool{}}
}

// Sent records a request written to the client. Reusing an id is an error.
func (p *Pending) Sent(r Request) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.open[r.ID]; ok || p.answered[r.ID] {
		return fmt.Errorf("protocol: request id %d used twice", r.ID)
	}
	p.open[r.ID] = r
	return nil
}

// Answered matches an answer to its request: an id never sent, or one
// already answered, is an error.
func (p *Pending) Answered(a Answer) (Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.open[a.ID]
	switch {
	case ok:
		delete(p.open, a.ID)
		p.answered[a.ID] = true
		return r, nil
	case p.answered[a.ID]:
		return Request{}, fmt.Errorf("protocol: duplicate answer to request %d", a.ID)
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
