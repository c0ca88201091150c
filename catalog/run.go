package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/power"
)

// detection is how long after the first fault the run's violation became
// detectable (power.DetectionTime; -1: none, or not known). The history
// is read streamed, up to the first fault and the anomalies' records.
func detection(res *analysis.Result) time.Duration {
	at, ok := power.DetectionTime(res.Verdict, res.History)
	if !ok {
		return -1
	}
	var faultAt int64
	_ = history.Each(res.History, func(op *history.Op) bool {
		if op.IsNemesis() && op.F == history.FStart {
			faultAt = op.Time
			return false
		}
		return true
	})
	return at - time.Duration(faultAt)
}

// Options select catalogue rows (Select).
type Options struct {
	// Only lists the row numbers to run; empty means all (or the quick
	// ones with Quick).
	Only  []int
	Quick bool
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
