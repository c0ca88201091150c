package reports

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/lockstorm/lockstorm/history"
)

// opOrder is the order of the per-operation panels of the latency and
// rate plots: the lock's operations, then the resource's, then the other
// workloads'. Operation types not listed come after, alphabetically.
var opOrder = []string{history.FAcquire, history.FRelease, history.FExtend, history.FRead, history.FWrite,
	history.FEnter, history.FLeave, history.FRun, history.FLead}

// orderTypes sorts operation types in opOrder, the others after it
// alphabetically.
func orderTypes(out []string) []string {
	rank := func(f string) int {
		if i := slices.Index(opOrder, f); i >= 0 {
			return i
		}
		return len(opOrder)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
	return out
}

// Per-operation figures: one panel of panelHeight per type, under a
// title, over a legend strip.
const (
	panelHeight = 2.1 * vg.Inch
	panelChrome = 0.9 * vg.Inch // figure title and legend strip
)

// panelsHeight is the height of a figure of n panels.
func panelsHeight(n int) vg.Length {
	return panelChrome + vg.Length(max(n, 1))*panelHeight
}

// newPanel returns one operation type's panel: titled with the type,
// the x axis labelled only on the bottom panel (last).
func newPanel(title, ylabel string, last bool) *plot.Plot {
	xl := ""
	if last {
		xl = "time since start (s)"
	}
	return smallTitle(newPlot(title, xl, ylabel))
}

// msLogTicks labels a log axis of milliseconds ("0.1 ms", "1000 ms") at
// the powers of ten, and at 2 and 5 times them, or every multiple, when
// the range holds too few of those. (The panels carry no y label: gonum
// centres it on the linear middle of a log axis.)
type msLogTicks struct{}

// Ticks returns the ticks for [lo, hi]: 1..9 times each power of ten
// from below lo to above hi (gonum's LogTicks starts at the wrong power
// below 1 ms).
func (msLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	// Label the powers of ten; if fewer than three fall in range, also 2
	// and 5 times them; if fewer than two labels then, every multiple.
	levels := [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	labelled := levels[0]
	for i, ms := range levels {
		labelled = ms
		n := 0
		for e := e0; e <= e1; e++ {
			for _, m := range ms {
				if in(mulPow10(m, e)) {
					n++
				}
			}
		}
		if n >= 3-min(i, 1) {
			break
		}
	}
	var ts []plot.Tick
	for e := e0; e <= e1; e++ {
		for m := 1; m <= 9; m++ {
			v := mulPow10(m, e)
			t := plot.Tick{Value: v}
			if m == 1 || in(v) && slices.Contains(labelled, m) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64) + " ms"
			}
			ts = append(ts, t)
			if e == e1 {
				break
			}
		}
	}
	return ts
}

// mulPow10 is m × 10^e, computed so that it prints short (3/10 is 0.3,
// 3 × 0.1 is not).
func mulPow10(m, e int) float64 {
	if e < 0 {
		return float64(m) / math.Pow10(-e)
	}
	return float64(m) * math.Pow10(e)
}
