package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// spillWrites streams the resource's log to writes.jsonl, keeping the last
// liveTail entries in memory, like the history.
func (r *run) spillWrites() error {
	f, err := os.Create(filepath.Join(r.dir, store.WritesFile))
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	r.res.Spill(f, liveTail)
	return nil
}

// liveTail is how many recent records a run keeps in memory for its live
// readers (progress, fault targeting); older ones are only in
// history.jsonl, so that its memory stays flat however long it lasts.
var liveTail = 1 << 16

// keepHistory hands the run's history and resource log to res: in memory
// when they all are, else in their files (read streamed; Writes nil).
func (r *run) keepHistory(res *analysis.Result) {
	if r.rec.Whole() && r.rec.Len() <= liveTail {
		res.History = history.Slice(r.rec.History())
	} else {
		res.History = history.File(filepath.Join(r.dir, store.HistoryFile))
		r.logf("history of %d records (more than the %d kept in memory): read streamed from %s", r.rec.Len(), liveTail, store.HistoryFile)
	}
	if ws := r.res.Writes(); r.res.Whole() { // whole then, whole before
		res.Writes = ws
	}
}

// finish closes the history after execute (which returned err), stores
// the resource's writes, the completion mark and the final counter, and
// checks the history. After a failed history write, failed store writes
// (a full disk) are only logged: they must not keep the verdict back.
func (r *run) finish(ctx context.Context, res *analysis.Result, err error) error {
	if cerr := r.rec.Close(); cerr != nil && res.Incomplete == "" {
		res.Incomplete = "history write failed: " + cerr.Error()
	}
	r.keepHistory(res)
	if werr := r.res.CloseSpill(); werr != nil && res.Incomplete == "" {
		res.Incomplete = "resource log write failed: " + werr.Error()
	}
	storeErr := func(werr error) {
		if werr == nil {
			return
		}
		if res.Incomplete != "" {
			r.logf("store: %v", werr)
		} else if err == nil {
			err = werr
		}
	}
	if r.res.Whole() { // else writes.jsonl is whole as streamed
		storeErr(store.WriteJSONL(filepath.Join(r.dir, store.WritesFile), res.Writes))
	}
	if len(r.panics) > 0 && err == nil {
		err = fmt.Errorf("harness: panic: %s", r.panics[0])
	}
	if err != nil {
		return err
	}
	r.overhead.Records = r.rec.Len()
	r.overhead.Completions, r.overhead.Unknown = r.rec.Completions()
	if r.ranFor > 0 {
		r.overhead.RecordsPerSec = float64(r.overhead.Records) / r.ranFor.Seconds()
	}
	res.Overhead = &r.overhead
	r.logf("recorded %d records, %.0f records/s", r.overhead.Records, r.overhead.RecordsPerSec)
	tf := analysis.TestFile{Incomplete: res.Incomplete, Overhead: res.Overhead, ClockEvents: res.ClockEvents}
	if res.Incomplete == "" {
		tf.Completed, tf.Records = true, r.rec.Len()
	}
	storeErr(r.writeTestFile(tf))
	if r.cfg.Workload == "counter" {
		key := r.cfg.Workloads.Key
		res.Final = map[string]int64{key: r.res.Value(key)}
		storeErr(store.WriteJSON(filepath.Join(r.dir, store.FinalFile), res.Final))
	}
	if err != nil {
		return err
	}
	res.Records = r.rec.Len()
	storeErr(analysis.Check(context.WithoutCancel(ctx), res))
	r.logf("verdict: %s", res.Verdict.Valid)
	if res.Incomplete != "" {
		r.logf("incomplete: %s", res.Incomplete)
	}
	return err
}
