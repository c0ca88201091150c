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
		refusedNaming(t, bin, args[0], append([]string{"sweep", "--store", t.TempDir()}, args...)...)
	}
}

// refusedNaming runs lockstorm with args and wants exit 2 with one line
// of error naming flag.
func refusedNaming(t *testing.T, bin, flag string, args ...string) {
	t.Helper()
	code, _, errOut := exec1(t, bin, args...)
	if code != 2 || !strings.Contains(errOut, flag) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("%v: exit %d, %q", args, code, errOut)
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

// sweep and compare take any lock: their help names --client-cmd,
// --client-dir and --zoo-entry (and sweep's --nemesis axis); a bad
// value of each is refused at once, exit 2, one line naming the flag.
func TestSweepCompareAnyLockFlags(t *testing.T) {
	bin := binary(t)
	for _, c := range []string{"sweep", "compare"} {
		_, help, _ := exec1(t, bin, c, "--help")
		for _, f := range []string{"--client-cmd string", "--client-dir string", "--zoo-entry string", "LOCKSTORM_"} {
			if !strings.Contains(help, f) && (f != "LOCKSTORM_" || c == "sweep") {
				t.Errorf("%s --help lacks %q", c, f)
			}
		}
	}
	_, help, _ := exec1(t, bin, "sweep", "--help")
	if !strings.Contains(help, "--nemesis string") || !strings.Contains(help, "partition") {
		t.Errorf("sweep --help lacks the --nemesis axis")
	}
	for _, args := range [][]string{
		{"sweep", "--nemesis", "latency"},
		{"sweep", "--zoo-entry", t.TempDir()},
		{"sweep", "--lock", "mine"},
		{"sweep", "--zoo-entry", "../../zoo/seed-fencing", "--client-cmd", "x"},
		{"compare", "--zoo-entry", "../../zoo/rueidislock-v1.0.80"},
	} {
		refusedNaming(t, bin, args[1], append(args, "--store", t.TempDir())...)
	}
}

// A real one-cell sweep of a process client under a partition of its
// holder: the cell runs the command, and its fault plan cuts the holder.
func TestSweepProcessClientPartitionReal(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of 2.5s")
	}
	bin := binary(t)
	store := t.TempDir()
	cmd := exec.Command(bin, "sweep", "--store", store, "--name", "proc", "--client-cmd", "lockstorm client --lock single", "--lock", "single",
		"--ttl", "300ms", "--renew", "none", "--pause", "300ms", "--nemesis", "partition", "--seeds", "1", "--time-limit", "2500ms")
	cmd.Env = append(os.Environ(), "CI=1", "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "| 300ms | renew none, partition | 300ms |") {
		t.Errorf("no partition row:\n%s", out)
	}
	plans, _ := filepath.Glob(filepath.Join(store, "sweep-proc", "2*", "fault-plan.json"))
	if len(plans) != 1 {
		t.Fatalf("fault plans %v", plans)
	}
	plan, _ := os.ReadFile(plans[0])
	testJSON, _ := os.ReadFile(filepath.Join(filepath.Dir(plans[0]), "test.json"))
	if !strings.Contains(string(plan), `"partition"`) || !strings.Contains(string(plan), "@holder") || !strings.Contains(string(testJSON), "lockstorm client --lock single") {
		t.Errorf("plan %s\ntest.json %s", plan, testJSON)
	}
}
