package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// writePorcupine writes porcupine.html (the lock check) and, for the
// counter workload, porcupine-counter.html (the counter's critical
// sections) of res's whole history h, from the searches the checks kept (see
// keptLinearizations), else by searching again. Above opt.PorcupineMaxOps
// client operations it draws only the failing segments, one page each
// (writeSegmentPages), and note says which pages show which records; for
// a history that does not validate, porcupine.html is a short page saying
// why instead, and note says so for index.html. Every page is titled
// with the run, lock and verdict, and opens at the operation its
// "#op=N" fragment names (decoratePorcupine).
func writePorcupine(res *analysis.Result, h history.History, opt Options) (note string, counter bool, err error) {
	n := len(spans(h))
	var reason string
	switch {
	case n > opt.PorcupineMaxOps && checker.Validate(h) == nil:
		return writeSegmentPages(res, h, nil, opt, n)
	case n > opt.PorcupineMaxOps:
		reason = fmt.Sprintf("The history has %d client operations, more than the %d porcupine's visualisation is built for; the lock check itself ran on all of them (see results.json).", n, opt.PorcupineMaxOps)
	case checker.Validate(h) != nil:
		reason = "The history is not well-formed, so porcupine could not be run on it: " + checker.Validate(h).Error()
	}
	path := filepath.Join(res.Dir, store.PorcupineFile)
	if reason != "" {
		return reason, false, writeNotePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine): not built"), reason)
	}
	var buf bytes.Buffer
	lock, counterKept := keptLinearizations(res.Verdict)
	if lock != nil {
		err = lock.WriteHTML(&buf, h)
	} else { // a result read back from disk, or a check without a search
		l := checker.NewLock()
		l.Timeout = opt.PorcupineTimeout
		err = checker.WritePorcupineHTML(&buf, h, l)
	}
	if err != nil {
		return "", false, fmt.Errorf("reports: %s: %w", store.PorcupineFile, err)
	}
	if err := os.WriteFile(path, decoratePorcupine(buf.Bytes(), porcupineTitle(res, "Lock check (porcupine)")), 0o644); err != nil {
		return "", false, fmt.Errorf("reports: %w", err)
	}
	if res.Config.Workload != "counter" || !hasF(h, history.FWrite) {
		return "", false, nil
	}
	buf.Reset()
	if counterKept != nil {
		err = counterKept.WriteHTML(&buf, h)
	} else {
		err = checker.WriteCounterHTML(&buf, h, opt.PorcupineTimeout)
	}
	if err != nil {
		return "", false, fmt.Errorf("reports: %s: %w", store.PorcupineCounterFile, err)
	}
	page := decoratePorcupine(buf.Bytes(), porcupineTitle(res, "Counter's critical sections (porcupine)"))
	if err := os.WriteFile(filepath.Join(res.Dir, store.PorcupineCounterFile), page, 0o644); err != nil {
		return "", false, fmt.Errorf("reports: %w", err)
	}
	return "", true, nil
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

func hasF(h history.History, f string) bool {
	for i := range h {
		if h[i].F == f {
			return true
		}
	}
	return false
}
