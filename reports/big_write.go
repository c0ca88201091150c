package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// writeBig is WriteWith for a big history (res.HistoryFile, not in
// memory): its plots, porcupine pages and index.html are drawn from
// scanBig's streamed passes and the window history, and the page says
// which parts cover the whole run and which only windows of it.
// timeline.html is not drawn (a box per operation needs the history in
// memory); fencing.png is drawn from the resource's log, sampled past
// maxFenceSample entries.
func writeBig(res *harness.Result, opt Options) error {
	b, err := scanBig(res)
	if err != nil {
		return &WriteError{err}
	}
	wsOrig := b.faults     // the history's indices
	ws := b.windowFaults() // the window history's, same times
	end := b.end
	for _, w := range ws {
		end = max(end, w.End)
	}
	wres := *res
	wres.History, wres.Verdict = b.wh, b.windowVerdict(res.Verdict)
	if wres.Writes, err = b.windowWrites(res); err != nil {
		return &WriteError{err}
	}
	plots := []plotFile{
		{store.HoldersFile, "Who held the lock",
			"Top: the whole run, streamed from history.jsonl: per client, the share of each time column it believed it held the lock (darker = longer; orange: past the validity it computed), red where two holders overlapped, ▼ at anomalies. Below: each anomaly window drawn in detail from the records read around it (see the note above: only those records). In a window, blue bar: the client believed it held the lock; orange: past its validity; thin line above: the validity window; red strip: two leases believed held at once; marks above a bar: resource writes where they reached the resource (▲ accepted, ✕ rejected, ■ unknown). Shaded columns are fault windows.",
			func() ([]byte, error) { return b.holders(res, &wres, ws, end) }},
		{store.LatencyRawFile, "Latency of every operation",
			"Each operation's latency (completion − invoke) at its invoke time, by outcome, on a log axis, streamed over the whole history: crowded outcomes as density (darker = more), rare ones point by point. Operations that never completed are drawn at the top. Shaded columns are fault windows.",
			func() ([]byte, error) { return b.latencyRaw(ws, end) }},
		{store.LatencyQuantileFile, "Latency quantiles",
			"p50 / p95 / p99 / max latency of completed operations per time bucket, over the whole history; p50–p99 read from histograms of 2% bins (within 2% of the exact values), max exact.",
			func() ([]byte, error) { return b.latencyQuantiles(ws, end) }},
		{store.RateFile, "Throughput",
			"Completed operations per second by outcome, over the whole history.",
			func() ([]byte, error) { return b.rate(ws, end) }},
		{store.FencingFile, "Fencing tokens",
			"The fencing token each write carried when it reached the resource, from the resource's log read entry by entry: accepted, accepted although lower than one accepted before (a stale write that got through), or rejected by the fencing resource; grey rings are the tokens the lock issued. Past 100000 entries the title says which sample is drawn (every stale write is kept); when the resource must be pictured send by send, see the holders windows.",
			func() ([]byte, error) {
				png, ok, err := b.fencing(res, ws, end)
				if err == nil && !ok {
					err = errNotDrawn
				}
				return png, err
			}},
	}
	figs := make([]figure, len(plots))
	errs := make([]error, len(plots)+4)
	var wg sync.WaitGroup
	drawPlots(&wg, res.Dir, plots, figs, errs)
	wg.Wait()
	opt.origIndex = b.origIndex()
	porcNote, counterPage, perr := writeSegmentPages(&wres, opt, b.ops)
	errs[len(plots)] = perr
	errs[len(plots)+1] = WriteJUnitFile(filepath.Join(res.Dir, store.JUnitFile), JUnitDocument(RunSuite(res)))
	errs[len(plots)+2] = writeBigTimeline(res, b)
	shown := drawnFigures(figs)
	page := buildPageAt(res, func(i int64) (history.Op, bool) { o, ok := b.recs[i]; return o, ok }, wsOrig, shown, runFiles(res.Dir), counterPage, porcNote)
	page.Records, page.Ops = int(b.records), b.ops
	page.Duration = time.Duration(b.end).Round(time.Millisecond).String()
	page.Big = b.notes()
	errs[len(plots)+3] = writeIndexFile(res.Dir, page)
	if err := errors.Join(errs...); err != nil {
		return &WriteError{err}
	}
	return nil
}

// errNotDrawn is a plot's draw saying it has nothing to draw from.
var errNotDrawn = errors.New("not drawn")

// notes are index.html's plain account of what covers the whole history
// and what only windows of it.
func (b *bigRun) notes() []string {
	out := []string{
		fmt.Sprintf("This history has %d records (%d client operations), at least the %d from which lockstorm keeps a history out of memory: the checkers read all of it, streamed from history.jsonl, and so did this report, whose memory does not grow with the history.", b.records, b.ops, harness.BigHistoryRecords),
		"Whole run: the verdict and every checker's result, the coverage, latency-raw.png (crowded outcomes as density), latency-quantiles.png (p50–p99 from 2% histogram bins, max exact), rate.png, and the overview at the top of holders.png. fencing.png draws the resource's whole log up to 100000 entries, past that a sample its title names (every stale write kept), with no send times.",
	}
	if len(b.windows) == 0 {
		out = append(out, "Windows: no anomaly names a record, so holders.png has no detailed window and no porcupine segment is drawn.")
	} else {
		w := fmt.Sprintf("Windows, not the whole run: the detailed windows of holders.png and the porcupine pages are drawn only from the records read around the first %d anomaly window(s)", len(b.windows))
		for i, r := range b.read {
			w += fmt.Sprintf("%s window %d: records %d..%d (%d read)", map[bool]string{true: ":", false: ";"}[i == 0], i+1, r.first, r.last, r.n)
		}
		w += fmt.Sprintf(". At most %d records are read per window, so a lease or operation begun before a window's first record is not drawn in it, and a porcupine segment is cut at the window's edges (its check may differ from the whole history's).", maxWindowRecords)
		if b.windowsLeft > 0 {
			w += fmt.Sprintf(" %d more anomaly windows are not drawn.", b.windowsLeft)
		}
		out = append(out, w)
	}
	return append(out, "Not drawn for a history this big: timeline.html (every operation as a box) and the client-pause stories; results.json and history.jsonl have it all.")
}

// origIndex maps the window history's indices to the history's.
func (b *bigRun) origIndex() []int64 {
	out := make([]int64, len(b.wh))
	for i, j := range b.whOf {
		out[j] = i
	}
	return out
}

// windowWrites reads the resource's log entries handled during the
// anomaly windows (at most maxWindowRecords per window), for the
// windows' write marks; the rest of writes.jsonl is skipped.
func (b *bigRun) windowWrites(res *harness.Result) ([]resource.Write, error) {
	if len(b.read) == 0 || res.Dir == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(res.Dir, store.WritesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	defer f.Close()
	n := make([]int, len(b.read))
	var out []resource.Write
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var w resource.Write
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			return nil, fmt.Errorf("reports: %s line %d: %v", store.WritesFile, line, err)
		}
		for i, r := range b.read {
			if w.Time >= r.from && w.Time <= r.to && n[i] < maxWindowRecords {
				n[i]++
				out = append(out, w)
				break
			}
		}
	}
	return out, sc.Err()
}

// writeBigTimeline writes timeline.html as a short page saying why it is
// not drawn.
func writeBigTimeline(res *harness.Result, b *bigRun) error {
	title := html.EscapeString(fmt.Sprintf("Timeline — %s, lock %s: not drawn", res.Config.Name, res.Config.Lock))
	page := "<!DOCTYPE html><meta charset=\"utf-8\"><title>" + title + "</title><h1>" + title + "</h1><p>" +
		html.EscapeString(fmt.Sprintf("This history has %d client operations in %d records, too many to draw one box each; history.jsonl has them all, and index.html's plots cover them (holders.png draws the records around the anomalies in detail).", b.ops, b.records)) + "</p>\n"
	if err := os.WriteFile(filepath.Join(res.Dir, store.TimelineFile), []byte(page), 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
