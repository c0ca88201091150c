package harness

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// spillWrites streams the resource's log to writes.jsonl, keeping the last
// liveWindow entries in memory, like the history.
func (r *run) spillWrites() error {
	f, err := os.Create(filepath.Join(r.dir, store.WritesFile))
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	r.res.Spill(f, liveWindow)
	return nil
}

// liveWindow is how many recent records a run keeps in memory for its
// live readers (progress, fault targeting), which read new records every
// progress tick (0.5 s). Older records are only in history.jsonl, so the
// run's memory stays flat however long it lasts. A run that recorded more
// reads its history back from the file for the check (reloadHistory).
var liveWindow = 1 << 16

// checkBytesPerRecord is the memory the end-of-run check needs per record
// when it loads the whole history (measured: a 400k-record history takes
// 1.1 to 1.5 GB to analyse), with some margin.
const checkBytesPerRecord = 4 << 10

// memAvailable is the memory the system can give without swapping, in
// bytes (MemAvailable of /proc/meminfo), or -1 when unknown; tests
// replace it.
var memAvailable = func() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// tooBigToCheck says why a history of n records cannot be checked in this
// process's memory (its load would need more than half of what is
// available: the machine may be shared, and swapping or the OOM killer
// would take it down), or "" when it fits or the available memory is
// unknown. Such a history is checked streamed (streamed) unless its
// workload's streamed check reads it whole (refuseBig): only then is it
// refused, "not checked".
func tooBigToCheck(n int, avail int64) string {
	need := int64(n) * checkBytesPerRecord
	if avail < 0 || need <= avail/2 {
		return ""
	}
	return fmt.Sprintf("not checked: the history of %d records needs about %.1f GB to check in memory, %.1f GB are available; "+
		"check it with lockstorm analyze on a machine with more memory", n, float64(need)/1e9, float64(avail)/1e9)
}

// reloadHistory replaces res.History and res.Writes, of which the run kept
// only the last records in memory, with the whole history and resource log
// read back from history.jsonl and writes.jsonl, for a history that fits
// in memory (see streamed; the others are checked streamed).
func (r *run) reloadHistory(res *Result) error {
	h, warns, err := history.ReadFile(filepath.Join(r.dir, store.HistoryFile))
	for _, w := range warns {
		r.logf("history: %v", w)
	}
	if err != nil {
		return err
	}
	if res.Writes, err = readWrites(filepath.Join(r.dir, store.WritesFile)); err != nil {
		return err
	}
	res.History = h
	r.logf("history of %d records and %d resource log entries read back from %s and %s for the check",
		len(h), len(res.Writes), store.HistoryFile, store.WritesFile)
	return nil
}
