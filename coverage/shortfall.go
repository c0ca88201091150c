package coverage

import "fmt"

// Shortfall lists, one line each, why the run's faults do not back a green
// verdict:
//
//   - a requested kind of which no fault was applied (whatever min is);
//   - when min > 0, a requested kind with fewer than min applied windows
//     that touched a lock holder or waiter, or, for a history without
//     client slots, that this cannot be judged.
//
// No requested kind means no shortfall.
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
			verb := "touched"
			if c.Exercised == 0 && c.Applied == 1 {
				what += " never"
			}
			out = append(out, fmt.Sprintf("%s %s a lock holder or waiter (need %d; --min-coverage 0 turns this off)", what, verb, min))
		}
	}
	if min > 0 && r.Unjudged != "" && len(r.Requested) > 0 {
		out = append(out, "coverage cannot be judged: "+r.Unjudged+" (--min-coverage 0 turns this off)")
	}
	return out
}

// Judge sets Min and the shortfall lines (Gaps) for the bar min, and
// returns the lines.
func (r *Report) Judge(min int) []string {
	r.Min = min
	r.Gaps = r.Shortfall(min)
	return r.Gaps
}
