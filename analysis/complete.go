package analysis

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
)

// notCompleted is the reason given for a stored run whose test.json has no
// completion mark.
const notCompleted = "the run did not complete (test.json has no completion mark: it was killed, crashed or is still running)"

// storedIncomplete says why a stored run (its test.json, the number n of
// records read from its history, and h, those records or at least their
// nemesis records) cannot be trusted to be whole, or "" when it can: cut
// short (test.json says why), never marked completed, fewer records than
// the run wrote, or, for a run with a fault plan, no final heal record
// pair (missingHeal).
func storedIncomplete(tf TestFile, n int, h history.History) string {
	var why []string
	switch {
	case tf.Incomplete != "":
		why = append(why, tf.Incomplete)
	case !tf.Completed:
		why = append(why, notCompleted)
	case n != tf.Records:
		why = append(why, fmt.Sprintf("%s has %d records, the run wrote %d (truncated or damaged)", store.HistoryFile, n, tf.Records))
	}
	if heal := missingHeal(tf.Plan, h); heal != "" {
		why = append(why, heal)
	}
	return strings.Join(why, "; ")
}

// demoteIncomplete applies the rule that a run cut short never passes: a
// valid verdict of an incomplete run becomes unknown, saying why. An
// invalid verdict stays invalid: the violation happened.
func demoteIncomplete(res *Result) {
	if res.Incomplete == "" || res.Verdict.Valid != checker.Valid {
		return
	}
	res.Verdict.Valid = checker.Unknown
	res.Verdict.Error = "incomplete run: " + res.Incomplete
}

// demoteClockEvents applies the rule that a run whose clocks stepped has
// no verdict: Redis expires keys by a clock that moved by more than the
// drift allowance within a TTL, so an anomaly may be the clock's doing
// and a pass did not test the lock as configured. The verdict becomes
// unknown, naming the first event; the anomalies stay listed.
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

// missingHeal says why a history of a run with a fault plan lacks its
// final heal (the nemesis FHeal record pair: an invoke and its completion,
// written by nemesis.Runner.Heal when the run ends or is interrupted), or
// "" when the pair is there or the run had no plan. Without it the faults
// may still have been in place when the history ends: the history was cut
// before the run finished.
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
