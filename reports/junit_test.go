package reports

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
)

// A checker that does not apply is <skipped message="why"/>, not a pass,
// and the suite's skipped count says so; every case carries the checker's
// time and the suite a timestamp.
func TestJUnitNotApplicableIsSkipped(t *testing.T) {
	v := checker.Result{Name: "lockstorm", Valid: checker.Valid, Results: []checker.Result{
		{Name: "lock", Valid: checker.Valid, Seconds: 0.25},
		{Name: "fencing", Valid: checker.Valid, NotApplicable: "no fencing tokens", Seconds: 0.001},
	}}
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	doc := JUnitDocument(verdictSuite("t", v, 2, started, nil, ""))
	b := must[[]byte](t)(MarshalJUnit(doc))
	var back JUnitSuites
	noErr(t, xml.Unmarshal(b, &back))
	s := back.Suites[0]
	if s.Skipped != 1 || s.Tests != 2 || s.Failures != 0 || s.Errors != 0 {
		t.Errorf("suite counts tests %d skipped %d failures %d errors %d, want 2 1 0 0", s.Tests, s.Skipped, s.Failures, s.Errors)
	}
	if s.Timestamp != "2026-01-02T03:04:05" {
		t.Errorf("suite timestamp %q", s.Timestamp)
	}
	for _, c := range s.Cases {
		if c.Time <= 0 {
			t.Errorf("case %s has no time", c.Name)
		}
		if (c.Name == "fencing") != (c.Skipped != nil) {
			t.Errorf("case %s skipped=%v", c.Name, c.Skipped != nil)
		}
	}
	if !strings.Contains(string(b), `<skipped message="fencing does not apply: no fencing tokens">`) {
		t.Errorf("no skipped element with its reason:\n%s", b)
	}
}

// JUnit times are plain decimals: no exponent, whatever the size, and
// they read back.
func TestJUnitTimesAreDecimals(t *testing.T) {
	d := JUnitDocument(JUnitSuite{Name: "s", Time: 1234567.891, Cases: []JUnitCase{{Name: "tiny", Time: 0.00001}, {Name: "big", Time: 2e7}}})
	b := must[[]byte](t)(MarshalJUnit(d))
	out := string(b)
	for _, want := range []string{`time="1234567.891"`, `time="0.00001"`, `time="20000000"`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "eE+") && strings.Contains(out, "e+") {
		t.Errorf("an exponent in\n%s", out)
	}
	var back JUnitSuites
	if err := xml.Unmarshal(b, &back); err != nil || back.Suites[0].Cases[1].Time != 2e7 {
		t.Errorf("read back %v: %+v", err, back)
	}
}
