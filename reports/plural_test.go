package reports

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// Counts of one take the singular: the hand-built pause run has one fault
// window and its report says "1 fault window"; a checker with one fatal
// anomaly fails in junit.xml with "1 anomaly".
func TestReportCountsPluralise(t *testing.T) {
	res := pauseResult(t.TempDir())
	mustWrite(t, res)
	b := storetest.Read(t, res.Dir, store.IndexFile)
	sub := regexp.MustCompile(`(?s)<div class="sub">seed.*?</div>`).FindString(string(b))
	if !strings.Contains(sub, " · 1 fault window ·") || regexp.MustCompile(`\b1 (fault windows|fatal anomalies|operations)\b`).MatchString(sub) {
		t.Errorf("banner line: %q", sub)
	}
	r := checker.Result{Name: "lock", Valid: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "overlap", Fatal: true, Text: "two holders"}}}
	tc := junitCase("lockstorm.t", r)
	if tc.Failure == nil || !strings.HasPrefix(tc.Failure.Message, "lock: invalid, 1 anomaly (first: ") {
		t.Errorf("junit failure: %+v", tc.Failure)
	}
}
