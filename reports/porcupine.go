package reports

import (
	"bytes"
	"fmt"
	"io"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// writePorcupine writes porcupine.html (the lock check) and, for the
// counter workload, porcupine-counter.html (the counter's critical
// sections) of res's history from the pass s: of a whole history of at
// most opt.PorcupineMaxOps client operations, one page each, from the
// searches the checks kept (see keptLinearizations), else by searching
// again; of a longer one (or of the window history of one not kept
// whole), only the failing segments, one page each (writeSegmentPages),
// and note says which pages show which records. For a history that does
// not validate, porcupine.html is a short page saying why instead, and
// note says so for index.html. Every page is titled with the run, lock
// and verdict, and opens at the operation its "#op=N" fragment names
// (decoratePorcupine).
func (s *runScan) writePorcupine(res *analysis.Result, opt Options) (note string, counter bool, err error) {
	h, n := s.d.h, s.ops.len()
	var reason string
	switch {
	case !s.whole || n > opt.PorcupineMaxOps && checker.Validate(h) == nil:
		return writeSegmentPages(res, s.d, s.orig, opt, n)
	case n > opt.PorcupineMaxOps:
		reason = fmt.Sprintf("The history has %d client operations, more than the %d porcupine's visualisation is built for; the lock check itself ran on all of them (see results.json).", n, opt.PorcupineMaxOps)
	case checker.Validate(h) != nil:
		reason = "The history is not well-formed, so porcupine could not be run on it: " + checker.Validate(h).Error()
	}
	if reason != "" {
		return reason, false, writeNotePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine): not built"), reason)
	}
	lock, counterKept := keptLinearizations(res.Verdict)
	if err := writePorcupinePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine)"), func(w io.Writer) error {
		if lock != nil {
			return lock.WriteHTML(w, h)
		}
		return drawLock(w, h, opt) // a result read back from disk, or a check without a search
	}, nil); err != nil {
		return "", false, err
	}
	if !counterRun(res, h) {
		return "", false, nil
	}
	err = writePorcupinePage(res.Dir, store.PorcupineCounterFile, porcupineTitle(res, "Counter's critical sections (porcupine)"), func(w io.Writer) error {
		if counterKept != nil {
			return counterKept.WriteHTML(w, h)
		}
		return checker.WriteCounterHTML(w, h, opt.PorcupineTimeout)
	}, nil)
	return "", err == nil, err
}

// drawLock writes porcupine's page of the lock check of h, searching
// again (within opt.PorcupineTimeout).
func drawLock(w io.Writer, h history.History, opt Options) error {
	l := checker.NewLock()
	l.Timeout = opt.PorcupineTimeout
	return checker.WritePorcupineHTML(w, h, l)
}

// writePorcupinePage writes file into dir: porcupine's page drawn by
// draw, titled title (decoratePorcupine), then marked (when mark is not
// nil) as one segment of the history (markSegment).
func writePorcupinePage(dir, file, title string, draw func(w io.Writer) error, mark func(page []byte) []byte) error {
	var buf bytes.Buffer
	if err := draw(&buf); err != nil {
		return fmt.Errorf("reports: %s: %w", file, err)
	}
	page := decoratePorcupine(buf.Bytes(), title)
	if mark != nil {
		page = mark(page)
	}
	return writeFile(dir, file, page)
}

// keptLinearizations are the porcupine searches the lock and resource
// checkers kept in v's details; nil where none was kept (a result read
// back from results.json keeps none, and is searched again).
func keptLinearizations(v checker.Result) (lock, counter *checker.Linearization) {
	for _, r := range v.Results {
		switch d := r.Details.(type) {
		case checker.LockDetails:
			lock = d.Linearization
		case checker.ResourceDetails:
			counter = d.Linearization
		}
	}
	return lock, counter
}

// counterRun says res is a counter run whose history h has writes: the
// counter's critical sections get porcupine pages of their own.
func counterRun(res *analysis.Result, h history.History) bool {
	for i := range h {
		if h[i].F == history.FWrite {
			return res.Config.Workload == "counter"
		}
	}
	return false
}
