package harness

import (
	"fmt"

	"github.com/lockstorm/lockstorm/checker"
)

// notCompleted is the reason given for a stored run whose test.json has no
// completion mark.
const notCompleted = "the run did not complete (test.json has no completion mark: it was killed, crashed or is still running)"

// storedIncomplete says why a stored run (its test.json, and n records
// read from its history) cannot be trusted to be whole, or "" when it can.
func storedIncomplete(tf testFile, n int) string {
	switch {
	case tf.Incomplete != "":
		return tf.Incomplete
	case !tf.Completed:
		return notCompleted
	case n != tf.Records:
		return fmt.Sprintf("%s has %d records, the run wrote %d (truncated or damaged)", HistoryFile, n, tf.Records)
	}
	return ""
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
