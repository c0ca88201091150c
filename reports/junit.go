package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

// JUnit XML as CI tools read it: a <testsuite> per run, a <testcase> per
// checker: valid passes, invalid is a <failure>, unknown an <error>; a
// composed verdict the checkers' do not explain gets a "verdict" case.

// JUnitSuites is the document's root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     Seconds      `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is the run.
type JUnitSuite struct {
	Name     string  `xml:"name,attr"`
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Skipped  int     `xml:"skipped,attr"`
	Time     Seconds `xml:"time,attr"`
	// Timestamp is when the suite started, UTC without a zone suffix
	// (JUnitTimestamp).
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

// JUnitProperty is a name/value pair of the suite (seed, lock, ...).
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one checker.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      Seconds       `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	// Skipped marks a checker with nothing to check.
	Skipped   *JUnitSkip `xml:"skipped,omitempty"`
	SystemOut string     `xml:"system-out,omitempty"`
}

// Seconds is a JUnit time attribute, written as a plain decimal
// ("0.00001", never "1e-05"), which every JUnit reader parses.
type Seconds float64

// MarshalXMLAttr writes s as a plain decimal.
func (s Seconds) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: strconv.FormatFloat(max(float64(s), 0), 'f', -1, 64)}, nil
}

// UnmarshalXMLAttr reads a decimal (or any float) back.
func (s *Seconds) UnmarshalXMLAttr(a xml.Attr) error {
	f, err := strconv.ParseFloat(a.Value, 64)
	*s = Seconds(f)
	return err
}

// JUnitSkip is a test case's <skipped message="..."/>.
type JUnitSkip struct {
	Message string `xml:"message,attr,omitempty"`
}

// JUnitTimestamp formats t as a suite's timestamp attribute.
func JUnitTimestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

// JUnitProblem is a failure or an error: a one-line message and the full
// text.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitCase turns one checker result into a test case; its time is the
// checker's own (checker.Result.Seconds).
func junitCase(class string, r checker.Result) JUnitCase {
	tc := JUnitCase{Name: r.Name, Classname: class, Time: Seconds(r.Seconds)}
	text, why := anomalyText(r), ""
	if r.Error != "" {
		why = ": " + firstLine(r.Error)
	}
	switch r.Valid {
	case checker.Invalid:
		fatal := 0
		for _, a := range r.Anomalies {
			if a.Fatal {
				fatal++
			}
		}
		msg := fmt.Sprintf("%s: invalid, %s", r.Name, page.Count(fatal, "anomaly", "anomalies")) + why
		if a, ok := firstFatalAnomaly(r); ok {
			msg += " (first: " + firstLine(anomalyLine(a.Anomaly)) + ")"
		}
		tc.Failure = &JUnitProblem{Message: msg, Type: "invalid", Text: joinNonEmpty(r.Error, text)}
	case checker.Unknown:
		tc.Error = &JUnitProblem{Message: r.Name + ": unknown" + why, Type: "unknown", Text: joinNonEmpty(r.Error, text)}
	default:
		if r.NotApplicable != "" {
			// nothing to check is not a pass: CI shows it as skipped
			tc.Skipped = &JUnitSkip{Message: r.Name + " does not apply: " + r.NotApplicable}
		}
		tc.SystemOut = text
	}
	return tc
}

// verdictSuite is the suite of a composed verdict: one case per checker,
// plus a "verdict" case when the checkers' verdicts do not explain it.
func verdictSuite(suite string, v checker.Result, seconds float64, started time.Time, props []JUnitProperty, out string) JUnitSuite {
	s := JUnitSuite{Name: suite, Time: Seconds(seconds), Timestamp: JUnitTimestamp(started), Properties: props, SystemOut: out}
	class := "lockstorm." + suite
	merged := checker.Valid
	for _, r := range checkerParts(v) {
		s.Cases = append(s.Cases, junitCase(class, r))
		merged = checker.Merge(merged, r.Valid)
	}
	if merged != v.Valid && len(v.Results) > 0 {
		s.Cases = append(s.Cases, junitCase(class, checker.Result{Name: "verdict", Valid: v.Valid, Error: v.Error, Seconds: v.Seconds}))
	}
	return s.Counted()
}

// Counted returns s with its tests, failures, errors and skipped counts
// taken from its cases.
func (s JUnitSuite) Counted() JUnitSuite {
	s.Tests, s.Failures, s.Errors, s.Skipped = len(s.Cases), 0, 0, 0
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	return s
}

// JUnitDocument is the document of suites (each counted, see Counted)
// with the root's totals; its time is the suites' sum.
func JUnitDocument(suites ...JUnitSuite) JUnitSuites {
	d := JUnitSuites{Name: "lockstorm"}
	for _, s := range suites {
		s = s.Counted()
		d.Tests += s.Tests
		d.Failures += s.Failures
		d.Errors += s.Errors
		d.Time += s.Time
		d.Suites = append(d.Suites, s)
	}
	return d
}

// WriteJUnitFile writes d to path (MarshalJUnit), creating its folder.
func WriteJUnitFile(path string, d JUnitSuites) error {
	b, err := MarshalJUnit(d)
	if err != nil {
		return err
	}
	err = os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// MarshalJUnit renders the document with an XML header.
func MarshalJUnit(d JUnitSuites) ([]byte, error) {
	b, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("reports: junit: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// anomalyText lists r's anomalies (orderedAnomalies), one anomalyLine
// each.
func anomalyText(r checker.Result) string {
	var b strings.Builder
	for _, a := range orderedAnomalies(r) {
		b.WriteString(anomalyLine(a.Anomaly))
		b.WriteByte('\n')
	}
	return b.String()
}

// anomalyLine is one anomaly in one line of text.
func anomalyLine(a checker.Anomaly) string {
	s := fmt.Sprintf("[%s] ops %s: %s", a.Kind, indexList(a.Ops, 40), a.Text)
	if len(a.Faults) > 0 {
		s += " (faults: " + strings.Join(a.Faults, ", ") + ")"
	}
	if !a.Fatal {
		s += " (not fatal)"
	}
	return s
}

// indexList is "3, 7, 9" with at most n indices, then "… (+k more)".
func indexList(ops []int64, n int) string {
	if len(ops) == 0 {
		return "none"
	}
	var parts []string
	for i, o := range ops {
		if i == n {
			parts = append(parts, fmt.Sprintf("… (+%d more)", len(ops)-n))
			break
		}
		parts = append(parts, fmt.Sprint(o))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}

// coverageProps are the suite properties coverage.<kind>.<field> of the
// run's fault coverage, coverage.unjudged and coverage.shortfall.
func coverageProps(c *coverage.Report) []JUnitProperty {
	if c == nil {
		return nil
	}
	var out []JUnitProperty
	for _, k := range c.Kinds {
		for _, f := range []struct {
			name string
			n    int
		}{{"planned", k.Planned}, {"applied", k.Applied}, {"touched_holder", k.TouchedHolder},
			{"holder_at_start", k.HolderAtStart}, {"touched_waiter", k.TouchedWaiter},
			{"touched_write", k.TouchedWrite}, {"exercised", k.Exercised}} {
			out = append(out, JUnitProperty{"coverage." + k.Kind + "." + f.name, fmt.Sprint(f.n)})
		}
	}
	if c.Unjudged != "" {
		out = append(out, JUnitProperty{"coverage.unjudged", c.Unjudged})
	}
	if len(c.Gaps) > 0 {
		out = append(out, JUnitProperty{"coverage.shortfall", strings.Join(c.Gaps, "; ")})
	}
	return out
}

// RunSuite is a run's JUnit suite: a case per checker, the run's length
// and start, its settings and coverage as properties, the replay command
// and report path in <system-out>.
func RunSuite(res *analysis.Result) JUnitSuite { return runSuite(res, historyEnd(res)) }

// runSuite is RunSuite of a run whose history ends at end (ns).
func runSuite(res *analysis.Result, end int64) JUnitSuite {
	cfg := res.Config
	props := []JUnitProperty{
		{"seed", fmt.Sprint(cfg.Seed)}, {"lock", cfg.Lock}, {"workload", cfg.Workload},
		{"verdict", res.Verdict.Valid.String()}, {"run_dir", res.Dir},
	}
	props = append(props, coverageProps(res.Coverage)...)
	out := "replay: " + Replay(res) + "\nreport: " + filepath.Join(res.Dir, store.IndexFile) + "\n"
	// the run started when its folder's name says (local time), else now
	started, err := time.ParseInLocation(store.RunDirLayout, filepath.Base(res.Dir), time.Local)
	if err != nil {
		started = time.Now()
	}
	return verdictSuite(cfg.Name, res.Verdict, seconds(end), started, props, out)
}

// historyEnd is the latest record time of res's history, ns, of a file's
// last 64 KB (renewals are recorded a little out of order); 0: unknown.
func historyEnd(res *analysis.Result) int64 {
	var end int64
	if src := res.History; src == nil {
		return 0
	} else if src.Path() == "" {
		_ = history.Each(src, func(o *history.Op) bool { end = max(end, o.Time); return true })
		return end
	}
	f, err := os.Open(res.History.Path())
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	const tail = 64 << 10
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0
	}
	for _, line := range bytes.Split(bytes.TrimSpace(buf), []byte{'\n'}) {
		var o history.Op
		if json.Unmarshal(line, &o) == nil {
			end = max(end, o.Time)
		}
	}
	return end
}
