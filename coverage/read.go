package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/lockstorm/lockstorm/history"
)

// readBatch is the number of lines EachRecord hands to a decoder at once.
const readBatch = 4096

// batch is a run of lines of the history and, once decoded, their
// records.
type batch struct {
	lines [][]byte
	first int // line number of lines[0]
	ops   []history.Op
	err   error // a line that did not parse
	fatal bool  // ... with records after it in the batch
	done  chan struct{}
}

// EachRecord calls f with every record of the JSONL history at path, in
// order: history.Scanner's reading, faster. The lines are decoded in
// parallel, in batches (at most GOMAXPROCS+1 in flight, so memory stays
// a few batches), and handed to f one by one by the calling goroutine. A
// line that does not parse is an error, unless it is the last (a record
// cut short by a crash, skipped as history.Read does); unlike the
// Scanner it does not check the records' indices and types (the check
// of the same history does).
func EachRecord(path string, f func(o *history.Op)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	workers := max(runtime.GOMAXPROCS(0), 1)
	order := make(chan *batch, workers+1)
	work := make(chan *batch, workers+1)
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	for range workers {
		go func() {
			for b := range work {
				b.decode()
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(work)
		r := bufio.NewReaderSize(file, 1<<20)
		cur := &batch{first: 1, done: make(chan struct{})}
		line := 0
		send := func() bool {
			select {
			case order <- cur:
			case <-stop:
				return false
			}
			work <- cur
			cur = &batch{first: line + 1, done: make(chan struct{})}
			return true
		}
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				line++
				cur.lines = append(cur.lines, b)
				if len(cur.lines) == readBatch && !send() {
					return
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr <- err
				return
			}
		}
		if len(cur.lines) > 0 {
			send()
		}
	}()
	var pending error // a line that did not parse: an error unless it is the last record
	for b := range order {
		<-b.done
		if pending != nil && (len(b.ops) > 0 || b.err != nil) {
			return pending
		}
		if b.fatal {
			return b.err
		}
		for i := range b.ops {
			f(&b.ops[i])
		}
		if b.err != nil {
			pending = b.err
		}
	}
	select {
	case err := <-readErr:
		return err
	default:
		return nil
	}
}

// decode parses the batch's lines; blank lines are skipped. A line that
// does not parse ends the batch with err, unless only blank lines follow
// it (then it may be the history's truncated last record).
func (b *batch) decode() {
	for i, l := range b.lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		var o history.Op
		if err := json.Unmarshal(t, &o); err != nil {
			b.err = fmt.Errorf("line %d: %w", b.first+i, err)
			for _, rest := range b.lines[i+1:] {
				if len(bytes.TrimSpace(rest)) > 0 {
					b.fatal = true // a damaged record with records after it
				}
			}
			return
		}
		b.ops = append(b.ops, o)
	}
	b.lines = nil
}
