package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// Scanner reads a JSONL history one record at a time: blank lines are
// skipped; a line that does not parse is an error naming its line unless
// it is the last (cut short by a crash: skipped with a warning); records
// must carry the index of their position and a known type.
type Scanner struct {
	sc      *bufio.Scanner
	line    int
	n       int64 // records returned
	op      Op
	pending error // parse error of the previous non-blank line
	pendAt  int
	err     error
	warns   []Warning
	done    bool
	intern  map[string]string
	recent  [64]string          // a cache in front of intern, by length and last byte
	in      func([]byte) string // internBytes, made once (a method value passed on allocates)
	pos     int64               // bytes consumed by the line splitter
	start   int64               // offset of the line being read
	off     int64               // offset of the current record's line
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader) *Scanner { return NewScannerAt(r, 0, 0) }

// NewScannerAt returns a Scanner reading r, which starts at byte offset
// off (an Offset a Scanner gave) of a history, at the record with index
// first; line numbers count from there.
func NewScannerAt(r io.Reader, off, first int64) *Scanner {
	s := &Scanner{intern: map[string]string{}, pos: off, n: first}
	s.in = s.internBytes
	s.sc = bufio.NewScanner(r)
	s.sc.Buffer(make([]byte, 64<<10), 16<<20)
	s.sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		s.start = s.pos
		s.pos += int64(adv)
		return adv, tok, err
	})
	return s
}

// Offset is the byte offset of the line of the record Scan read.
func (s *Scanner) Offset() int64 { return s.off }

// Scan advances to the next record; false at the end or on an error (see
// Err).
func (s *Scanner) Scan() bool {
	if s.done {
		return false
	}
	for s.sc.Scan() {
		s.line++
		b := bytes.TrimSpace(s.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if s.pending != nil {
			return s.fail(fmt.Errorf("line %d: %w", s.pendAt, s.pending))
		}
		op := &s.op // decoded in place: no record on the heap each
		*op = Op{}
		if !decodeFast(b, op, s.in) {
			var strict Op
			if err := decodeStrict(b, &strict); err != nil {
				s.pending, s.pendAt = err, s.line
				continue
			}
			for _, p := range []*string{&strict.F, &strict.Key, &strict.Client, &strict.Fault, (*string)(&strict.Type)} {
				if *p != "" { // shared, as decodeFast shares them
					*p = s.internBytes([]byte(*p))
				}
			}
			*op = strict
		}
		if op.Index != s.n {
			return s.fail(fmt.Errorf("line %d: index %d, want %d", s.line, op.Index, s.n))
		}
		switch op.Type {
		case Invoke, OK, Fail, Info:
		default:
			return s.fail(fmt.Errorf("line %d: type %q is not invoke, ok, fail or info", s.line, op.Type))
		}
		s.off = s.start
		s.n++
		return true
	}
	s.done = true
	if err := s.sc.Err(); err != nil {
		s.err = fmt.Errorf("line %d: %w", s.line+1, err)
		return false
	}
	if s.pending != nil {
		s.warns = append(s.warns, Warning{Line: s.pendAt, Msg: "truncated last record skipped: " + s.pending.Error()})
	}
	return false
}

func (s *Scanner) fail(err error) bool {
	s.err, s.done = err, true
	return false
}

// internBytes is the shared string of b (at most 1<<16 are kept).
func (s *Scanner) internBytes(b []byte) string {
	h := len(b) * 7
	if len(b) > 0 {
		h += int(b[len(b)-1])
	}
	if r := &s.recent[h&63]; *r == string(b) {
		return *r
	} else if v, ok := s.intern[string(b)]; ok {
		*r = v
		return v
	}
	v := string(b)
	if len(s.intern) < 1<<16 {
		s.intern[v] = v
	}
	return v
}

// Op is the record Scan read.
func (s *Scanner) Op() Op { return s.op }

// Err is the error that stopped Scan, nil at a clean end.
func (s *Scanner) Err() error { return s.err }

// Warnings are the problems tolerated so far (a truncated last record).
func (s *Scanner) Warnings() []Warning { return s.warns }
