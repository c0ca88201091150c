package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// RunSuite is a run's JUnit suite: one test case per checker (its time
// the checker's), the suite's time the run's length in seconds of history
// and its timestamp when the run started; properties seed, lock,
// workload, verdict, run_dir and the fault coverage; the replay command
// and the report's path in <system-out>.
func RunSuite(res *analysis.Result) JUnitSuite { return runSuite(res, historyEnd(res)) }

// runSuite is RunSuite of a run whose history ends at end (ns).
func runSuite(res *analysis.Result, end int64) JUnitSuite {
	cfg := res.Config
	props := []JUnitProperty{
		{"seed", fmt.Sprint(cfg.Seed)}, {"lock", cfg.Lock}, {"workload", cfg.Workload},
		{"verdict", res.Verdict.Valid.String()}, {"run_dir", res.Dir},
	}
	props = append(props, coverageProps(res.Coverage)...)
	out := "replay: " + Replay(res) + "\nreport: " + filepath.Join(res.Dir, store.IndexFile) + "\n"
	return verdictSuite(cfg.Name, res.Verdict, seconds(end), RunStarted(res.Dir), props, out)
}

// historyEnd is the time of the latest record of res's history, ns: over
// the records in memory, or read from the end of its file (the records
// are in time order, but for renewals recorded at their computed invoke
// time, a little earlier); 0 when it cannot be read.
func historyEnd(res *analysis.Result) int64 {
	src := res.History
	if src == nil {
		return 0
	}
	if src.Path() != "" {
		return lastRecordTime(src.Path())
	}
	var end int64
	_ = history.Each(src, func(o *history.Op) bool { end = max(end, o.Time); return true })
	return end
}

// lastRecordTime is the latest time among the records in the last 64 KB
// of the history file at path; 0 when it cannot be read.
func lastRecordTime(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	const tail = 64 << 10
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0
	}
	var end int64
	for _, line := range bytes.Split(bytes.TrimSpace(buf), []byte{'\n'}) {
		var o history.Op
		if json.Unmarshal(line, &o) == nil {
			end = max(end, o.Time)
		}
	}
	return end
}

// RunStarted is when the run in folder dir started, read from the
// folder's name (store.RunDirLayout, local time); now when the name is
// not a run folder's.
func RunStarted(dir string) time.Time {
	if t, err := time.ParseInLocation(store.RunDirLayout, filepath.Base(dir), time.Local); err == nil {
		return t
	}
	return time.Now()
}
