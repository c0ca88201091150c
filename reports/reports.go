// Package reports turns a finished lockstorm run into files a person and a
// CI system can read: PNG plots, a self-contained index.html (verdict,
// replay line, checkers, anomalies with their records, fault plan, plots),
// porcupine's visualisation, timeline.html and JUnit XML. Everything is
// derived from the analysis.Result and its history read once in a stream
// (runScan), so re-analysing a stored run regenerates the whole report.
package reports

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/internal/store"
)

// ErrNoDir is returned when the result has no run folder to write into.
var ErrNoDir = errors.New("reports: result has no run folder")

// Write writes the report of res into res.Dir (plots, porcupine pages,
// timeline.html, junit.xml, index.html); the files' errors are joined.
func Write(res *analysis.Result) error { return WriteFrom(res, nil) }

// WriteFrom is Write from the pass p (NewPass); without p, or when it
// missed records, the report reads the history itself.
func WriteFrom(res *analysis.Result, p *Pass) error {
	if res == nil || res.Dir == "" {
		return &WriteError{ErrNoDir}
	}
	s, err := p.scan(res)
	if err != nil {
		return &WriteError{err}
	}
	end := s.end
	for _, w := range s.faults {
		end = max(end, w.End)
	}
	planErr := writeFaultPlan(res)
	plots := s.plotFiles(res, end)
	figs := make([]figure, len(plots))
	errs := make([]error, len(plots)+1)
	var wg sync.WaitGroup
	for i, pl := range plots {
		wg.Go(func() {
			png, err := pl.draw()
			if err == nil {
				err = os.WriteFile(filepath.Join(res.Dir, pl.file), png, 0o644)
			}
			if err != nil {
				errs[i] = fmt.Errorf("reports: %s: %w", pl.file, err)
				return
			}
			figs[i] = figure{File: pl.file, Title: pl.title, Caption: pl.caption, Data: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))}
		})
	}
	var porcNote string
	var timelineErr error
	pages := newOpPages(res.Verdict)
	wg.Go(func() { porcNote, errs[len(plots)] = s.writePorcupine(res, pages) })
	wg.Go(func() { timelineErr = writeTimelineFile(res, s, end, pages) })
	wg.Wait()
	errs = append(errs, WriteJUnitFile(filepath.Join(res.Dir, store.JUnitFile), JUnitDocument(runSuite(res, end))))
	index, err := renderIndex(buildPage(res, s, slices.DeleteFunc(figs, func(f figure) bool { return f.File == "" }), runFiles(res.Dir), pages, porcNote))
	if err == nil {
		err = writeFile(res.Dir, store.IndexFile, index)
	}
	if err := errors.Join(append(errs, err, timelineErr, planErr)...); err != nil {
		return &WriteError{err}
	}
	return nil
}

// plotFiles are the report's PNGs, drawn from the pass over the history
// and its resource log (s), to the run's end (ns).
func (s *runScan) plotFiles(res *analysis.Result, end int64) []plotFile {
	ws := s.faults
	holders, fencing := holdersCaption, fencingCaption
	if !s.whole {
		holders, fencing = holdersSpansCaption, fencingLogCaption
	}
	return []plotFile{
		{store.HoldersFile, "Who held the lock", holders,
			func() ([]byte, error) { return s.holdersPNG(res, end) }},
		{store.LatencyRawFile, "Latency of every operation",
			"Each operation's latency (completion − invoke) at its invoke time, by outcome, on a log axis. Operations that never completed are drawn at the top. Shaded columns are fault windows.",
			func() ([]byte, error) { return latencyRaw(s.ops, ws, end) }},
		{store.LatencyQuantileFile, "Latency quantiles",
			"p50 / p95 / p99 / max latency of completed operations: each point summarises the next N operations of its type by invoke time (N in the panel's title), drawn at their middle. A quantile is drawn only where a point holds enough operations for it to differ from the max (p95 from 20, p99 from 100), and lines never cross a stretch without operations.",
			func() ([]byte, error) { return latencyQuantiles(s.ops, ws, end) }},
		{store.RateFile, "Throughput",
			"Completed operations per second by outcome.",
			func() ([]byte, error) { return rate(s.ops, ws, end) }},
		{store.FencingFile, "Fencing tokens", fencing,
			func() ([]byte, error) { return s.fencingPNG(ws, end) }},
	}
}

// Captions of holders.png and fencing.png: a whole history's, and a
// longer one's (anomaly spans, a sampled log).
const (
	holdersCaption      = "One row per client (its process ids in brackets, a watchdog's included). Blue bar: the client believed it held the lock (acquire ok to release); orange: it still believed so after the validity it computed had passed; thin line above a bar: the validity line, ending in a tick at the deadline; red strip under two rows and a pale red column: two different leases believed held at once. Marks above a bar are resource writes where they reached the resource (▲ accepted, ✕ rejected, ■ unknown), with a thin line back to when they were sent; a red ring is a lost increment (a write of a value already written, dashed line to the first); a black ring is the holder learning its lease was lost. Shaded columns are fault windows; a client pause is shaded on the paused client's row, lightly across the others."
	holdersSpansCaption = "Top: the whole run, streamed from the history: per client, the share of each time column it believed it held the lock (darker = longer; orange: past the validity it computed), red where two holders overlapped, ▼ at anomalies. Below: each anomaly span drawn in detail from the records read around it (see the note above: only those records). In a span, blue bar: the client believed it held the lock; orange: past its validity; thin line above: the validity line; red strip: two leases believed held at once; marks above a bar: resource writes where they reached the resource (▲ accepted, ✕ rejected, ■ unknown). Shaded columns are fault windows."
	fencingCaption      = "The fencing token each write carried when it reached the resource: accepted, accepted although lower than one accepted before (a stale write that got through), or rejected by the fencing resource; grey rings are the tokens the lock issued."
	fencingLogCaption   = "The fencing token each write carried when it reached the resource, from the resource's log read entry by entry: accepted, accepted although lower than one accepted before (a stale write that got through), or rejected by the fencing resource; grey rings are the tokens the lock issued. Past 100000 entries the title says which sample is drawn (every stale write is kept); send times are drawn for the writes read around the anomalies (see the holders spans)."
)

// WriteError is every error of Write: the run was checked, (part of) its
// report could not be written.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// SplitError splits the error of a run that writes its report too
// (lockstorm.Run) into the run's own error and the report's.
func SplitError(err error) (runErr, reportErr error) {
	var we *WriteError
	if errors.As(err, &we) {
		return nil, we
	}
	return err, nil
}

// runFiles are dir's files of store.Files that exist, and junit.xml.
func runFiles(dir string) []fileLink {
	var out []fileLink
	for _, f := range store.Files {
		if f.Name == store.JUnitFile || store.Exists(dir, f.Name) {
			out = append(out, fileLink(f))
		}
	}
	return out
}

// plotFile is one PNG of the report: its file name, its title and caption
// on the page, and how to draw it.
type plotFile struct {
	file, title, caption string
	draw                 func() ([]byte, error)
}

// writeNotePage writes file into dir as a short page titled title that
// says text: a page of the report that could not be drawn, and why.
func writeNotePage(dir, file, title, text string) error {
	t := html.EscapeString(title)
	page := "<!DOCTYPE html><meta charset=\"utf-8\"><title>" + t + "</title><h1>" + t + "</h1><p>" + html.EscapeString(text) + "</p>\n"
	return writeFile(dir, file, []byte(page))
}

// writeFile writes b as file into dir.
func writeFile(dir, file string, b []byte) error {
	if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// notes are index.html's account, for a history not kept whole, of what
// covers the whole run and what only anomaly spans or a sample of it.
func (s *runScan) notes() []string {
	if s.whole {
		return nil
	}
	fences := "fencing.png draws every entry of the resource's log, the send times of the writes read around the anomalies (without a log, every write of the history, send times unknown)."
	if s.fenceLog.every > 1 || s.fenceLog.total == 0 && s.fences.len() > maxFenceSample {
		fences = fmt.Sprintf("fencing.png draws a sample of the resource's log (or, without one, of the history's writes), every stale entry kept, its title says which: past %d entries.", maxFenceSample)
	}
	out := []string{
		fmt.Sprintf("This history has %d records (%d client operations), more than the %d this report keeps whole: it read the history once, streamed, keeping each operation's times and outcome and each lease's, not the records, then read again only the records around the anomalies.", s.records, s.ops.len(), maxWholeRecords),
		"Whole run: the verdict and every checker's result, the coverage, latency-raw.png (crowded outcomes as density), latency-quantiles.png, rate.png, and the overview at the top of holders.png. " + fences,
	}
	if len(s.spans) == 0 {
		out = append(out, "Spans: no anomaly names a record, so holders.png has no detailed span.")
	} else {
		w := fmt.Sprintf("Spans, not the whole run: the detailed spans of holders.png are drawn only from the records read around the first %d anomaly span(s)", len(s.spans))
		for i, r := range s.read {
			w += fmt.Sprintf("%s span %d: records %d..%d (%d read)", map[bool]string{true: ":", false: ";"}[i == 0], i+1, r.first, r.last, r.n)
		}
		w += fmt.Sprintf(". At most %d records are read per span, so a lease or operation begun before a span's first record is not drawn in it. The porcupine pages are the check's own searches of its first failing segments.", maxSpanRecords)
		if s.spansLeft > 0 {
			w += fmt.Sprintf(" %d more anomaly spans are not drawn.", s.spansLeft)
		}
		out = append(out, w)
	}
	return append(out, "Not drawn for a history this long: timeline.html (every operation as a box) and the client-pause stories; results.json and history.jsonl have it all.")
}
