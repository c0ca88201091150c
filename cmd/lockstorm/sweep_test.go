package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/reports"
)

// sweep's help lists the fencing axis, the campaign flags and --junit; a
// bad --fencing-axis, --fencing beside --fencing-axis, a bad --ttl value
// and a --junit path that is a folder are refused at once, exit 2, one
// line.
func TestSweepFlags(t *testing.T) {
	bin := binary(t)
	_, help, _ := exec1(t, bin, "sweep", "--help")
	for _, f := range []string{"--fencing-axis string", "--fencing ", "--seeds int", "--parallel int", "--junit string", "(default \"off,on\")", "recommendation", "Exit status:", "0 means no pause"} {
		if !strings.Contains(help, f) {
			t.Errorf("sweep --help lacks %q", f)
		}
	}
	for _, args := range [][]string{
		{"--fencing-axis", "sometimes"},
		{"--fencing", "--fencing-axis", "on"},
		{"--ttl", "200ms,5ms"},
		{"--junit", t.TempDir()},
	} {
		code, _, errOut := exec1(t, bin, append([]string{"sweep", "--store", t.TempDir()}, args...)...)
		if code != 2 || !strings.Contains(errOut, args[0]) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("sweep %v: exit %d, %q", args, code, errOut)
		}
	}
}

// A real one-cell sweep with --junit: the file holds one passing case
// (the run has a verdict), and the terminal shows the recommendation.
func TestSweepJUnitReal(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of 2.5s")
	}
	bin := binary(t)
	store, xmlPath := t.TempDir(), filepath.Join(t.TempDir(), "sweep.xml")
	cmd := exec.Command(bin, "sweep", "--store", store, "--ttl", "1s", "--renew", "none", "--pause", "0", "--fencing-axis", "off",
		"--seeds", "1", "--time-limit", "2500ms", "--hold-max", "200ms", "--junit", xmlPath)
	cmd.Env = append(os.Environ(), "CI=1", "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\nrecommendation: smallest TTL with 0 of 1 invalid without pauses: 1s, without renewal") {
		t.Errorf("no recommendation line:\n%s", out)
	}
	b, err := os.ReadFile(xmlPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc reports.JUnitSuites
	if err := xml.Unmarshal(b, &doc); err != nil || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 {
		t.Fatalf("junit %v:\n%s", err, b)
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != "ttl-1s_renew-none_pause-0 seed 1: measured: the run ends with a verdict" || c.Failure != nil || c.Error != nil || c.Time < 2.5 || doc.Suites[0].Timestamp == "" {
		t.Errorf("case %+v, timestamp %q", c, doc.Suites[0].Timestamp)
	}
}
