package coverage

import "fmt"

// Shortfall lists why the faults do not back a green verdict: a
// requested kind never applied, and, when min > 0, one with fewer than
// min exercised windows (or that this cannot be judged).
func (r *Report) Shortfall(min int) []string {
	var out []string
	for _, k := range r.Requested {
		c := r.Kind(k)
		if c.Applied == 0 {
			out = append(out, fmt.Sprintf("%s was requested but no %s fault was applied (planned %d)", k, k, c.Planned))
			continue
		}
		if min <= 0 || r.Unjudged != "" {
			continue
		}
		if c.Exercised < min {
			what := fmt.Sprintf("none of %d %s faults", c.Applied, k)
			if c.Applied == 1 {
				what = fmt.Sprintf("the one %s fault", k)
			}
			if c.Exercised > 0 {
				what = fmt.Sprintf("only %d of %d %s faults", c.Exercised, c.Applied, k)
			}
			if c.Exercised == 0 && c.Applied == 1 {
				what += " never"
			}
			out = append(out, fmt.Sprintf("%s touched a lock holder or waiter (need %d; --min-coverage 0 turns this off)", what, min))
		}
	}
	if min > 0 && r.Unjudged != "" && len(r.Requested) > 0 {
		out = append(out, "coverage cannot be judged: "+r.Unjudged+" (--min-coverage 0 turns this off)")
	}
	return out
}

// Judge sets Min and Gaps for the bar min and returns the lines.
func (r *Report) Judge(min int) []string {
	r.Min = min
	r.Gaps = r.Shortfall(min)
	return r.Gaps
}
