package reports

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/store"
)

// RunSuite is a run's JUnit suite: one test case per checker (its time
// the checker's), the suite's time the run's length in seconds of history
// and its timestamp when the run started; properties seed, lock,
// workload, verdict, run_dir and the fault coverage; the replay command
// and the report's path in <system-out>.
func RunSuite(res *harness.Result) JUnitSuite {
	cfg := res.Config
	props := []JUnitProperty{
		{"seed", fmt.Sprint(cfg.Seed)}, {"lock", cfg.Lock}, {"workload", cfg.Workload},
		{"verdict", res.Verdict.Valid.String()}, {"run_dir", res.Dir},
	}
	props = append(props, coverageProps(res.Coverage)...)
	out := "replay: " + replayText(cfg) + "\nreport: " + filepath.Join(res.Dir, store.IndexFile) + "\n"
	end := endTime(res.History)
	for _, w := range checker.FaultWindows(res.History) {
		end = max(end, w.End)
	}
	if res.HistoryFile != "" && res.History == nil {
		end = lastRecordTime(res.HistoryFile) // a big history: records are in time order
	}
	return verdictSuite(cfg.Name, res.Verdict, seconds(end), RunStarted(res.Dir), props, out)
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
