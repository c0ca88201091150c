package catalog

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/reports"
)

// Outcome is what one row's run showed.
type Outcome struct {
	Row      Row
	Agree    bool
	Observed []string
	Elapsed  time.Duration
	Dir      string
	Err      error
	Result   *analysis.Result
	// Detected is how long after the first fault started the evidence of
	// the first violation was complete (the latest op of the earliest
	// fatal anomaly); negative when nothing was found.
	Detected time.Duration
}

// detection computes Outcome.Detected.
func detection(res *analysis.Result) time.Duration {
	var faultAt int64 = -1
	for _, op := range res.History {
		if op.IsNemesis() && op.F == history.FStart {
			faultAt = op.Time
			break
		}
	}
	best := int64(-1)
	for _, r := range res.Verdict.Results {
		for _, a := range r.Anomalies {
			if !a.Fatal || len(a.Ops) == 0 {
				continue
			}
			var last int64
			for _, i := range a.Ops {
				if i >= 0 && int(i) < len(res.History) {
					last = max(last, res.History[i].Time)
				}
			}
			if best < 0 || last < best {
				best = last
			}
		}
	}
	if best < 0 {
		return -1
	}
	return time.Duration(best - max(faultAt, 0))
}

// Options configure a catalogue run.
type Options struct {
	// Only lists the row numbers to run; empty means all (or the quick
	// ones with Quick).
	Only  []int
	Quick bool
	// Seed is every row's seed (the scripted faults do not depend on it;
	// the clients' drawn hold times do). Default 1.
	Seed  int64
	Store string
	// Runner runs each row and writes its report. Default lockstorm.Run;
	// a report it could not write is an observation of the row.
	Runner harness.RunFunc
	// Progress, when set, receives a line per row as it finishes.
	Progress io.Writer
}

// Select returns the rows the options ask for, or an error naming an
// unknown row number.
func Select(o Options) ([]Row, error) {
	all := Rows()
	if len(o.Only) == 0 {
		var out []Row
		for _, r := range all {
			if !o.Quick || r.Quick {
				out = append(out, r)
			}
		}
		return out, nil
	}
	var out []Row
	for _, n := range o.Only {
		found := false
		for _, r := range all {
			if r.N == n {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: --only: no catalogue row %d (rows: %s)", config.ErrConfig, n, rowNumbers(all))
		}
	}
	return out, nil
}

func rowNumbers(rows []Row) string {
	var parts []string
	last := -1
	for _, r := range rows {
		if r.N != last {
			parts = append(parts, fmt.Sprint(r.N))
			last = r.N
		}
	}
	return strings.Join(parts, ",")
}

// Run runs the rows one after another and reports each outcome. It stops
// early only when ctx ends.
func Run(ctx context.Context, rows []Row, o Options) []Outcome {
	if o.Seed == 0 {
		o.Seed = 1
	}
	var out []Outcome
	for _, r := range rows {
		if ctx.Err() != nil {
			break
		}
		oc := RunRow(ctx, r, o)
		out = append(out, oc)
		if o.Progress != nil {
			fmt.Fprintln(o.Progress, Line(oc))
		}
	}
	return out
}

// RunRow runs one row and judges it.
func RunRow(ctx context.Context, r Row, o Options) Outcome {
	cfg := r.Config
	cfg.Seed = o.Seed
	cfg.Store = o.Store
	cfg.Name = fmt.Sprintf("catalog-%02d-%s", r.N, cfg.Lock)
	start := time.Now()
	if o.Runner == nil {
		o.Runner = lockstorm.Run
	}
	res, err := o.Runner(ctx, cfg)
	err, reportErr := reports.SplitError(err)
	oc := Outcome{Row: r, Elapsed: time.Since(start), Err: err, Result: res}
	if res != nil {
		oc.Dir = res.Dir
	}
	if err != nil {
		oc.Observed = []string{"error: " + firstLine(err.Error())}
		return oc
	}
	if reportErr != nil {
		oc.Observed = append(oc.Observed, "report: "+reportErr.Error())
	}
	oc.Detected = detection(res)
	oc.Agree = true
	for _, e := range r.Expect {
		ok, obs := e.Check(res)
		oc.Agree = oc.Agree && ok
		mark := ""
		if !ok {
			mark = " (expected " + e.Desc + ")"
		}
		oc.Observed = append(oc.Observed, obs+mark)
	}
	return oc
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Line is one row's outcome as a line of the catalogue table.
func Line(oc Outcome) string {
	status := "agree"
	if !oc.Agree {
		status = "DISAGREE"
	}
	detected := ""
	if oc.Detected >= 0 && oc.Err == nil {
		detected = fmt.Sprintf(", detected %.1fs after the first fault", oc.Detected.Seconds())
	}
	return fmt.Sprintf("%-3d %-14s %-40s expected: %-40s observed: %s  [%s, ran %.1fs%s] %s",
		oc.Row.N, oc.Row.Lock, oc.Row.Fault, oc.Row.Expected, strings.Join(oc.Observed, "; "), status, oc.Elapsed.Seconds(), detected, oc.Dir)
}
