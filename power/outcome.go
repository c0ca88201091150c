package power

import (
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
)

// Outcome is one run of a scenario.
type Outcome struct {
	Seed int64 `json:"seed"`
	// Dir is the run's folder (empty when it could not be created).
	Dir string `json:"dir,omitempty"`
	// Verdict is the run's verdict: invalid is a detection for a broken
	// lock and a false alarm for a correct one; unknown is neither.
	Verdict checker.Validity `json:"valid"`
	// Detect is when the violation became detectable, since the run
	// started (see DetectionTime); meaningful only when DetectKnown.
	Detect      time.Duration `json:"-"`
	DetectKnown bool          `json:"-"`
	// DetectMS is Detect in milliseconds, for power.json (absent when not
	// known).
	DetectMS *float64 `json:"detect_ms,omitempty"`
	// Error is why the run produced no verdict (its setup failed, or it
	// crashed); such a run counts as an error, never as a verdict.
	Error string `json:"error,omitempty"`
}

// Targets are the bars a scenario is marked against.
type Targets struct {
	// MinDetected is the least fraction of a broken lock's runs that must
	// be invalid.
	MinDetected float64 `json:"min_detected"`
	// MaxMedian is the longest median time to detect, over the detected
	// runs of a broken lock.
	MaxMedian time.Duration `json:"max_median_ns"`
	// MaxFalseAlarms is the most invalid runs a correct lock may have.
	MaxFalseAlarms int `json:"max_false_alarms"`
}

// DefaultTargets: detected in at least 95% of runs, median time to detect
// at most 5 s, no false alarm.
var DefaultTargets = Targets{MinDetected: 0.95, MaxMedian: 5 * time.Second, MaxFalseAlarms: 0}

// Marks of a row.
const (
	Pass = "PASS"
	Miss = "MISS"
)

// Row is one scenario's aggregate.
type Row struct {
	Name   string `json:"name"`
	Broken bool   `json:"broken"`
	Setup  string `json:"setup"`
	// Runs counts every run, errors included. Invalid, Valid, Unknown and
	// Errors split it.
	Runs    int `json:"runs"`
	Invalid int `json:"invalid"`
	Valid   int `json:"valid"`
	Unknown int `json:"unknown"`
	Errors  int `json:"errors"`
	// Detected is Invalid/Runs for a broken lock: an unknown or failed run
	// is not a detection (and not excluded either: the fraction is of all
	// runs tried).
	Detected float64 `json:"detected,omitempty"`
	// Timed counts the invalid runs whose detection time is known; Median
	// and P90 are over them.
	Timed    int           `json:"timed,omitempty"`
	Median   time.Duration `json:"median_ns,omitempty"`
	P90      time.Duration `json:"p90_ns,omitempty"`
	MedianMS *float64      `json:"median_ms,omitempty"`
	P90MS    *float64      `json:"p90_ms,omitempty"`
	// Mark is PASS or MISS against the targets; Why says which target a
	// MISS missed.
	Mark     string    `json:"mark"`
	Why      string    `json:"why,omitempty"`
	Outcomes []Outcome `json:"runs_detail"`
}

func msOf(d time.Duration) *float64 {
	v := float64(d) / float64(time.Millisecond)
	return &v
}

// Aggregate sums a scenario's outcomes and marks the row against t.
//
// A broken lock passes when at least t.MinDetected of all its runs are
// invalid and the median detection time of those is at most t.MaxMedian
// (a row with detections but no known detection time misses). A correct
// lock passes when it has at most t.MaxFalseAlarms invalid runs and at
// least one valid run: a row of only unknown or failed runs proved
// nothing. A row without runs misses. Unknown runs are never detections, passes or alarms.
func Aggregate(s Scenario, outs []Outcome, t Targets) Row {
	r := Row{Name: s.Name, Broken: s.Broken, Setup: s.Describe(), Outcomes: outs}
	var times []time.Duration
	for i := range outs {
		o := &outs[i]
		r.Runs++
		switch {
		case o.Error != "":
			r.Errors++
		case o.Verdict == checker.Invalid:
			r.Invalid++
			if o.DetectKnown {
				times = append(times, o.Detect)
				o.DetectMS = msOf(o.Detect)
			}
		case o.Verdict == checker.Valid:
			r.Valid++
		default:
			r.Unknown++
		}
	}
	if r.Outcomes == nil {
		r.Outcomes = []Outcome{}
	}
	if r.Runs == 0 {
		r.Mark, r.Why = Miss, "no runs"
		return r
	}
	if !s.Broken {
		switch {
		case r.Invalid > t.MaxFalseAlarms:
			r.Mark, r.Why = Miss, "false alarms"
		case r.Valid == 0:
			r.Mark, r.Why = Miss, "no valid run"
		default:
			r.Mark = Pass
		}
		return r
	}
	r.Timed = len(times)
	r.Detected = float64(r.Invalid) / float64(r.Runs)
	if m, ok := Median(times); ok {
		r.Median, r.MedianMS = m, msOf(m)
	}
	if p, ok := Percentile(times, 0.9); ok {
		r.P90, r.P90MS = p, msOf(p)
	}
	var why []string
	if r.Detected < t.MinDetected {
		why = append(why, "detected")
	}
	if r.Timed == 0 || r.Median > t.MaxMedian {
		why = append(why, "median")
	}
	r.Mark = Pass
	if len(why) > 0 {
		r.Mark, r.Why = Miss, strings.Join(why, ",")
	}
	return r
}
