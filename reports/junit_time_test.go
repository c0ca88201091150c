package reports

import (
	"encoding/xml"
	"strings"
	"testing"
)

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
