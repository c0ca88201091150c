package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
)

// A checker that does not apply (fencing on a run without tokens) is
// shown as "not applicable" with its reason in the terminal summary (and
// index.html, TestWriteInvalid), never as "valid".
func TestNotApplicableShown(t *testing.T) {
	res := pauseResult(t.TempDir())
	var reason string
	for _, r := range res.Verdict.Results {
		if r.Name == "fencing" {
			reason = r.NotApplicable
		}
	}
	if reason == "" {
		t.Fatalf("the unfenced pause history's fencing checker applies: %+v", res.Verdict.Results)
	}
	var buf bytes.Buffer
	Summary(&buf, res)
	want := "  fencing    not applicable  (" + reason + ")\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
	if strings.Contains(buf.String(), "  fencing    valid") {
		t.Errorf("summary calls the inapplicable fencing checker valid:\n%s", buf.String())
	}
}

// The summary states the harness's overhead (records/s, unknown share,
// proxy latency); a stored run without it prints no such line.
func TestSummaryStatesOverhead(t *testing.T) {
	res := &analysis.Result{Overhead: &analysis.Overhead{Records: 1234, RecordsPerSec: 617.4, Completions: 600, Unknown: 15,
		DirectP50: 20, ProxiedP50: 62, ProxyAddedP50: 42, ProxyAddedP99: 71}}
	var buf bytes.Buffer
	Summary(&buf, res)
	if want := "harness: 1234 records, 617 records/s, 2.5% of completions unknown; proxies added p50 42 µs, p99 71 µs per op\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
	buf.Reset()
	Summary(&buf, &analysis.Result{})
	if strings.Contains(buf.String(), "harness:") {
		t.Errorf("summary without overhead:\n%s", buf.String())
	}
}
