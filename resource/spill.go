package resource

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// spill streams the server's log to a file and bounds what stays in
// memory, so that a long run's memory stays flat.
type spill struct {
	w      *bufio.Writer
	enc    *json.Encoder
	closer io.Closer
	keep   int   // entries kept in memory at least; 0: every entry
	first  int   // count of entries dropped from memory
	err    error // first write error
}

// Spill makes the server stream every log entry from now on as a JSON
// line (the format of the store's writes.jsonl) to w, and keep only the
// last keep entries (at least) in memory; keep <= 0 keeps every entry.
// Call it before serving; CloseSpill flushes and closes w.
func (s *Server) Spill(w io.Writer, keep int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bw := bufio.NewWriterSize(w, 64<<10)
	s.spill = spill{w: bw, enc: json.NewEncoder(bw), keep: max(keep, 0)}
	if c, ok := w.(io.Closer); ok {
		s.spill.closer = c
	}
}

// CloseSpill flushes the streamed log and closes its writer; later entries
// stay in memory only. It returns the first error writing the log.
func (s *Server) CloseSpill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := &s.spill
	if sp.w == nil {
		return sp.err
	}
	if err := sp.w.Flush(); err != nil && sp.err == nil {
		sp.err = fmt.Errorf("resource: log: %w", err)
	}
	if sp.closer != nil {
		if err := sp.closer.Close(); err != nil && sp.err == nil {
			sp.err = fmt.Errorf("resource: log: %w", err)
		}
	}
	sp.w, sp.enc = nil, nil
	return sp.err
}

// Whole reports whether every log entry is still in memory (Writes returns
// the whole log).
func (s *Server) Whole() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spill.first == 0
}

// Logged is the number of log entries so far.
func (s *Server) Logged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spill.first + len(s.writes)
}

// WritesSince returns a copy of the log entries from the i-th (counting
// from 0) still in memory: a reader that fell behind the kept tail gets
// the oldest kept entry first. The second result is the count of entries
// before the first returned one.
func (s *Server) WritesSince(i int) ([]Write, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := max(i, s.spill.first)
	if from-s.spill.first >= len(s.writes) {
		return nil, s.spill.first + len(s.writes)
	}
	return append([]Write(nil), s.writes[from-s.spill.first:]...), from
}

// logLocked appends one entry to the log: in memory, streamed when
// spilling, the oldest dropped once twice keep are in memory.
func (s *Server) logLocked(w Write) {
	sp := &s.spill
	if sp.enc != nil && sp.err == nil {
		if err := sp.enc.Encode(w); err != nil {
			sp.err = fmt.Errorf("resource: log: %w", err)
		}
	}
	if sp.keep > 0 && sp.enc != nil && sp.err == nil && len(s.writes) >= 2*sp.keep {
		n := len(s.writes) - sp.keep
		kept := make([]Write, sp.keep, 2*sp.keep)
		copy(kept, s.writes[n:])
		s.writes = kept
		sp.first += n
	}
	s.writes = append(s.writes, w)
}
