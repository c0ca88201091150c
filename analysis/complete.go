package analysis

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
)

// storedIncomplete says why a stored run (n records read, h at least its
// nemesis records) cannot be trusted to be whole, or "" when it can.
func storedIncomplete(tf TestFile, n int, h history.History) string {
	var why []string
	switch {
	case tf.Incomplete != "":
		why = append(why, tf.Incomplete)
	case !tf.Completed:
		why = append(why, "the run did not complete (test.json has no completion mark: it was killed, crashed or is still running)")
	case n != tf.Records:
		why = append(why, fmt.Sprintf("%s has %d records, the run wrote %d (truncated or damaged)", store.HistoryFile, n, tf.Records))
	}
	if heal := missingHeal(tf.Plan, h); heal != "" {
		why = append(why, heal)
	}
	return strings.Join(why, "; ")
}

// demoteIncomplete makes a valid verdict of an incomplete run unknown.
func demoteIncomplete(res *Result) {
	if res.Incomplete == "" || res.Verdict.Valid != checker.Valid {
		return
	}
	res.Verdict.Valid = checker.Unknown
	res.Verdict.Error = "incomplete run: " + res.Incomplete
}

// demoteClockEvents makes the verdict of a run whose clocks stepped
// unknown, naming the first event: an anomaly may be the clock's doing.
func demoteClockEvents(res *Result) {
	if len(res.ClockEvents) == 0 {
		return
	}
	why := "clock event: " + res.ClockEvents[0].String()
	if n := len(res.ClockEvents) - 1; n > 0 {
		why += fmt.Sprintf(" (and %d more)", n)
	}
	if res.Verdict.Valid == checker.Unknown && res.Verdict.Error != "" {
		why += "; " + res.Verdict.Error
	}
	res.Verdict.Valid, res.Verdict.Error = checker.Unknown, why
}

// missingHeal says why the history of a run with a fault plan lacks its
// final heal record pair (invoke and completion), or "".
func missingHeal(plan *nemesis.Plan, h history.History) string {
	if plan == nil {
		return ""
	}
	invoked := false
	for _, op := range h {
		if !op.IsNemesis() || op.F != nemesis.FHeal {
			continue
		}
		if op.Type == history.Invoke {
			invoked = true
		} else if invoked {
			return ""
		}
	}
	if invoked {
		return "the history ends without the completion of the final heal (nemesis heal record): it was cut before the faults were healed"
	}
	return "the history has no final heal record (nemesis heal): it was cut before the faults were healed"
}
