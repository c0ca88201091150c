package history

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
)

// Source is a history that can be read more than once, record by record:
// a slice held in memory (Slice) or a JSONL file (File).
type Source interface {
	// Open starts reading at p: the zero Pos is the first record; any
	// other Pos must be one a Cursor of this Source gave.
	Open(p Pos) (Cursor, error)
	// Path is the file's path, "" for a slice.
	Path() string
}

// Pos is where a record starts: its index and, in a file, the byte
// offset of its line (0 in a slice).
type Pos struct{ Index, Offset int64 }

// Cursor reads a Source's records in order.
type Cursor interface {
	// Next advances to the next record; false at the end or on an error.
	Next() bool
	// Op is the current record, valid until the next call of Next.
	Op() *Op
	// Pos is the current record's position.
	Pos() Pos
	// Err is the error that stopped Next, nil at a clean end.
	Err() error
	// Warnings are the problems tolerated (a truncated last record).
	Warnings() []Warning
	// Close stops reading; it may be called before the end, and twice.
	Close() error
}

// Slice is the Source of a history held in memory.
func Slice(h History) Source { return sliceSource(h) }

// File is the Source of the JSONL history at path, read with Scanner's
// rules a few batches ahead of the reader.
func File(path string) Source { return fileSource(path) }

// ReadRange reads the records [from.Index, to) of src, starting at from;
// a nil src has none.
func ReadRange(src Source, from Pos, to int64) (History, error) {
	if src == nil {
		return nil, nil
	}
	c, err := src.Open(from)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var h History
	for c.Pos().Index+1 < to && c.Next() {
		h = append(h, *c.Op())
	}
	return h, c.Err()
}

// ReadAll reads every record of src into memory: for a caller that
// needs the whole history at once and knows it is short.
func ReadAll(src Source) (History, error) { return ReadRange(src, Pos{}, math.MaxInt64) }

// Each calls f on every record of src in order, stopping early when f
// returns false; a nil src has no record.
func Each(src Source, f func(o *Op) bool) error {
	if src == nil {
		return nil
	}
	c, err := src.Open(Pos{})
	if err != nil {
		return err
	}
	defer c.Close()
	for c.Next() {
		if !f(c.Op()) {
			break
		}
	}
	return c.Err()
}

type sliceSource History

func (s sliceSource) Path() string { return "" }

func (s sliceSource) Open(p Pos) (Cursor, error) {
	if p.Index < 0 || p.Index > int64(len(s)) {
		return nil, fmt.Errorf("history: record %d is outside a history of %d", p.Index, len(s))
	}
	return &sliceCursor{h: History(s), i: int(p.Index) - 1}, nil
}

type sliceCursor struct {
	h History
	i int
}

func (c *sliceCursor) Next() bool {
	if c.i+1 >= len(c.h) {
		c.i = len(c.h)
		return false
	}
	c.i++
	return true
}

func (c *sliceCursor) Op() *Op             { return &c.h[c.i] }
func (c *sliceCursor) Pos() Pos            { return Pos{Index: int64(c.i)} }
func (c *sliceCursor) Err() error          { return nil }
func (c *sliceCursor) Warnings() []Warning { return nil }
func (c *sliceCursor) Close() error        { return nil }

type fileSource string

func (s fileSource) Path() string { return string(s) }

func (s fileSource) Open(p Pos) (Cursor, error) {
	f, err := os.Open(string(s))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if p.Offset > 0 {
		if _, err := f.Seek(p.Offset, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	c := &fileCursor{f: f, sc: NewScannerAt(f, p.Offset, p.Index), out: make(chan *batch, 4),
		free: make(chan *batch, 8), stop: make(chan struct{}), pos: Pos{Index: p.Index - 1}}
	go c.decode()
	return c, nil
}

// fileCursor runs a Scanner on its own goroutine, a few batches of
// records ahead of the reader; its Err and Warnings are read once Next
// has reported the end (or after Close).
type fileCursor struct {
	f    *os.File
	sc   *Scanner
	out  chan *batch
	free chan *batch
	stop chan struct{}
	once sync.Once
	cur  *batch
	i    int
	pos  Pos
	done bool
}

// batch is records and the byte offsets of their lines.
type batch struct {
	ops  []Op
	offs []int64
}

const batchSize = 1024

func (c *fileCursor) decode() {
	defer close(c.out)
	for {
		var b *batch
		select {
		case b = <-c.free:
			b.ops, b.offs = b.ops[:0], b.offs[:0]
		default:
			b = &batch{ops: make([]Op, 0, batchSize), offs: make([]int64, 0, batchSize)}
		}
		for len(b.ops) < batchSize && c.sc.Scan() {
			b.ops = append(b.ops, c.sc.Op())
			b.offs = append(b.offs, c.sc.Offset())
		}
		if len(b.ops) == 0 {
			return
		}
		select {
		case c.out <- b:
		case <-c.stop:
			return
		}
	}
}

func (c *fileCursor) Next() bool {
	if c.done {
		return false
	}
	for c.cur == nil || c.i == len(c.cur.ops) {
		if c.cur != nil {
			select {
			case c.free <- c.cur:
			default:
			}
		}
		b, ok := <-c.out
		if !ok {
			c.cur, c.done = nil, true
			return false
		}
		c.cur, c.i = b, 0
	}
	c.i++
	c.pos = Pos{Index: c.cur.ops[c.i-1].Index, Offset: c.cur.offs[c.i-1]}
	return true
}

func (c *fileCursor) Op() *Op  { return &c.cur.ops[c.i-1] }
func (c *fileCursor) Pos() Pos { return c.pos }

func (c *fileCursor) Err() error {
	if !c.done {
		return nil
	}
	return c.sc.Err()
}

func (c *fileCursor) Warnings() []Warning {
	if !c.done {
		return nil
	}
	return c.sc.Warnings()
}

func (c *fileCursor) Close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		for range c.out {
		}
		c.done = true
		err = c.f.Close()
	})
	return err
}
