package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
)

// detection is how long after the first fault the first fatal anomaly was complete (-1: none).
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
