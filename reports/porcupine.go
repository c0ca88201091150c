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
// and its own search's verdict, opens at the operation its "#op=N"
// fragment names (decoratePorcupine), and records in pages the
// anomalies' ops it draws.
func (s *runScan) writePorcupine(res *analysis.Result, opt Options, pages *opPages) (note string, err error) {
	h, n := s.d.h, s.ops.len()
	var reason string
	switch {
	case !s.whole || n > opt.PorcupineMaxOps && checker.Validate(h) == nil:
		return writeSegmentPages(res, s.d, s.orig, opt, n, pages)
	case n > opt.PorcupineMaxOps:
		reason = fmt.Sprintf("The history has %d client operations, more than the %d porcupine's visualisation is built for; the lock check itself ran on all of them (see results.json).", n, opt.PorcupineMaxOps)
	case checker.Validate(h) != nil:
		reason = "The history is not well-formed, so porcupine could not be run on it: " + checker.Validate(h).Error()
	}
	if reason != "" {
		return reason, writeNotePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine): not built", nil), reason)
	}
	lock, counterKept := keptLinearizations(res.Verdict)
	if err := writePorcupinePage(res, store.PorcupineFile, "Lock check (porcupine)", func(w io.Writer) (checker.Validity, error) {
		if lock != nil {
			return lock.Valid(), lock.WriteHTML(w, h)
		}
		return drawLock(w, h, opt) // a result read back from disk, or a check without a search
	}, nil, pages); err != nil {
		return "", err
	}
	if !counterRun(res, h) {
		return "", nil
	}
	return "", writePorcupinePage(res, store.PorcupineCounterFile, "Counter's critical sections (porcupine)", func(w io.Writer) (checker.Validity, error) {
		if counterKept != nil {
			return counterKept.Valid(), counterKept.WriteHTML(w, h)
		}
		return checker.WriteCounterHTML(w, h, opt.PorcupineTimeout)
	}, nil, pages)
}

// drawLock writes porcupine's page of the lock check of h, searching
// again (within opt.PorcupineTimeout), and returns the search's verdict.
func drawLock(w io.Writer, h history.History, opt Options) (checker.Validity, error) {
	l := checker.NewLock()
	l.Timeout = opt.PorcupineTimeout
	return checker.WritePorcupineHTML(w, h, l)
}

// writePorcupinePage writes file into res.Dir: porcupine's page drawn by
// draw, titled with what it shows and the verdict of draw's search
// (porcupineTitle, decoratePorcupine), then marked (when mark is not
// nil) as one segment of the history (markSegment); pages records the
// anomalies' ops it draws.
func writePorcupinePage(res *analysis.Result, file, what string, draw func(w io.Writer) (checker.Validity, error), mark func(page []byte) []byte, pages *opPages) error {
	var buf bytes.Buffer
	v, err := draw(&buf)
	if err != nil {
		return fmt.Errorf("reports: %s: %w", file, err)
	}
	pages.addPorcupine(file, buf.Bytes())
	page := decoratePorcupine(buf.Bytes(), porcupineTitle(res, what, &v))
	if mark != nil {
		page = mark(page)
	}
	return writeFile(res.Dir, file, page)
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
