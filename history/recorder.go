package history

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// FlushInterval is the longest time a record waits in the recorder's buffer
// before it is written to the file.
const FlushInterval = 50 * time.Millisecond

// Recorder appends records to a history, assigning each its index and
// time, and streams them as JSON lines to a writer. It is safe for
// concurrent use; make one with NewRecorder or CreateFile.
type Recorder struct {
	start time.Time // monotonic origin of Time

	mu        sync.Mutex
	chunks    []History // full chunks of chunkSize records, then the current one
	n         int       // records so far
	completed int       // client completions so far (ok, fail, info)
	infos     int       // of which info: outcome unknown
	first     int       // index of the first record still in memory (see KeepLast)
	keep      int       // records to keep in memory at least; 0 keeps all
	spare     History   // a dropped chunk, reused for the next one
	w         *bufio.Writer
	closer    io.Closer
	line      []byte
	err       error // first write error; later records are still kept in memory
	closed    bool

	failed chan struct{} // closed at the first write error

	stop chan struct{}
	done chan struct{}
}

// NewRecorder returns a recorder that streams to w (nil keeps records in
// memory only). The run's clock starts now.
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{start: time.Now(), stop: make(chan struct{}), done: make(chan struct{}), failed: make(chan struct{})}
	if w != nil {
		r.w = bufio.NewWriterSize(w, 256<<10)
		if c, ok := w.(io.Closer); ok {
			r.closer = c
		}
	}
	go r.flushLoop()
	return r
}

// CreateFile creates (or truncates) path and returns a recorder streaming
// to it. Close the recorder to flush and close the file.
func CreateFile(path string) (*Recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return NewRecorder(f), nil
}

// Start is the monotonic instant the run's clock counts from.
func (r *Recorder) Start() time.Time { return r.start }

// Restart moves the run's clock to count from now, and reports whether it
// did: only while nothing is recorded yet, and nothing reads the clock.
func (r *Recorder) Restart() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n > 0 {
		return false
	}
	r.start = time.Now()
	return true
}

// Now is nanoseconds since the run started.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// At converts a monotonic instant to the run's clock (ns since start).
func (r *Recorder) At(t time.Time) int64 { return int64(t.Sub(r.start)) }

// Record stamps op with the next index and the current time, appends it, and
// returns the stamped op.
func (r *Recorder) Record(op Op) Op {
	r.mu.Lock()
	op.Time = r.Now()
	r.appendLocked(&op)
	r.mu.Unlock()
	return op
}

// RecordAt is Record at a time given by the caller (ns since start), for
// events observed elsewhere (a completion must not precede its invoke).
// A time before the start is recorded at 0, its offset in the Detail.
func (r *Recorder) RecordAt(op Op, t int64) Op {
	if t < 0 {
		op.Detail = strings.TrimSpace(op.Detail + fmt.Sprintf(" (began %s before the history's start; recorded at 0)", time.Duration(-t)))
		t = 0
	}
	r.mu.Lock()
	op.Time = t
	r.appendLocked(&op)
	r.mu.Unlock()
	return op
}

// chunkSize is how many records one in-memory chunk holds (no copy of
// the whole history as one slice grows).
const chunkSize = 8192

func (r *Recorder) appendLocked(op *Op) {
	op.Index = int64(r.n)
	r.n++
	if op.Type != Invoke && !op.IsNemesis() {
		r.completed++
		if op.Type == Info {
			r.infos++
		}
	}
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1]) == chunkSize {
		r.dropLocked()
		c := r.spare // a new chunk: the spare when there is one
		if c == nil {
			c = make(History, 0, chunkSize)
		}
		r.chunks, r.spare = append(r.chunks, c), nil
	}
	last := &r.chunks[len(r.chunks)-1]
	*last = append(*last, *op)
	if r.w == nil || r.closed {
		return
	}
	r.line = appendJSON(r.line[:0], op)
	r.line = append(r.line, '\n')
	if _, err := r.w.Write(r.line); err != nil {
		r.failLocked(err)
	}
}

// failLocked keeps the first write error and signals it on Failed.
func (r *Recorder) failLocked(err error) {
	if r.err != nil {
		return
	}
	r.err = fmt.Errorf("history: write: %w", err)
	close(r.failed)
}

// Failed is closed at the first error writing the history (a full disk),
// at most FlushInterval after the record; the records stay in memory, the
// file is incomplete (see Err).
func (r *Recorder) Failed() <-chan struct{} { return r.failed }

// Err is the first error writing the history, or nil.
func (r *Recorder) Err() error { return locked(&r.mu, func() error { return r.err }) }

// Len is the number of records so far.
func (r *Recorder) Len() int { return locked(&r.mu, func() int { return r.n }) }

// Completions is the number of client completions recorded so far and
// how many of them are info.
func (r *Recorder) Completions() (done, unknown int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.completed, r.infos
}

// locked returns read() with mu held.
func locked[T any](mu *sync.Mutex, read func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return read()
}

// History returns a copy of the records still in memory: every record so
// far unless KeepLast dropped the oldest (see Whole).
func (r *Recorder) History() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := make(History, 0, r.n)
	for _, c := range r.chunks {
		h = append(h, c...)
	}
	return h
}

// Flush writes buffered records to the underlying writer.
func (r *Recorder) Flush() error { return locked(&r.mu, r.flushLocked) }

func (r *Recorder) flushLocked() error {
	if r.w == nil || r.closed {
		return r.err
	}
	if err := r.w.Flush(); err != nil {
		r.failLocked(err)
	}
	return r.err
}

func (r *Recorder) flushLoop() {
	defer close(r.done)
	t := time.NewTicker(FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			_ = r.Flush()
		}
	}
}

// Close flushes every record and closes the writer if it is a Closer. The
// in-memory history stays readable. Close may be called more than once.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.err
	}
	err := r.flushLocked()
	r.closed = true
	if r.closer != nil {
		if cerr := r.closer.Close(); cerr != nil && err == nil {
			r.failLocked(cerr)
			err = r.err
		}
	}
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	return err
}

// Since returns a copy of the records with index i and later still in
// memory (after KeepLast dropped some, from the oldest kept).
func (r *Recorder) Since(i int) History {
	r.mu.Lock()
	defer r.mu.Unlock()
	i = max(i, r.first)
	if i >= r.n {
		return nil
	}
	at := i - r.first
	h := append(make(History, 0, r.n-i), r.chunks[at/chunkSize][at%chunkSize:]...)
	for _, c := range r.chunks[at/chunkSize+1:] {
		h = append(h, c...)
	}
	return h
}
