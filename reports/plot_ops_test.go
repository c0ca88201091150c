package reports

import (
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// The per-operation panels follow the lock's operations first and list
// only the types the history has: the hand-built pause history has no
// extend.
func TestOpTypesOnlyPresentInOrder(t *testing.T) {
	h, _ := pauseHistory()
	got := logOf(h).present(false)
	want := []string{"acquire", "release", "read", "write"}
	if !slices.Equal(got, want) {
		t.Errorf("present = %v, want %v", got, want)
	}
	b := historytest.New()
	for i, f := range []string{"zz", "extend", "aa", "acquire"} {
		b.Append(history.Op{Time: int64(i), Type: history.Invoke, Process: i, F: f})
	}
	b.Append(history.Op{Time: 9, Type: history.OK, Process: 1, F: "extend"})
	if got := logOf(b.History()).present(false); !slices.Equal(got, []string{"acquire", "extend", "aa", "zz"}) {
		t.Errorf("present with unknown types = %v", got)
	}
	if got := logOf(b.History()).present(true); !slices.Equal(got, []string{"extend"}) {
		t.Errorf("present among completed = %v, want extend", got)
	}
}

// A millisecond log axis is labelled at the powers of ten, each label
// with its unit; a range spanning less than a decade still carries
// labels (2 and 5 times the powers of ten), and a very narrow one (a
// constant latency) at every multiple inside it.
func TestMsLogTicksLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		inside bool // only the labels within [lo, hi]
		want   []string
	}{
		{0.12, 0.9, true, []string{"0.2 ms", "0.5 ms"}},
		{0.25, 0.45, true, []string{"0.3 ms", "0.4 ms"}},
		{0.05, 3000, false, []string{"0.01 ms", "0.1 ms", "1 ms", "10 ms", "100 ms", "1000 ms", "10000 ms"}},
	} {
		var labels []string
		for _, tk := range (msLogTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" && (!c.inside || tk.Value >= c.lo && tk.Value <= c.hi) {
				labels = append(labels, tk.Label)
			}
		}
		if !slices.Equal(labels, c.want) {
			t.Errorf("labels over [%v, %v] = %v, want %v", c.lo, c.hi, labels, c.want)
		}
	}
}
