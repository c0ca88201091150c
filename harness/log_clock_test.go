package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// logLine is "<RFC 3339> <history time>s <message>" or
// "<RFC 3339>     setup <message>".
var logLine = regexp.MustCompile(`^\S+ +(-?[0-9]+\.[0-9]{3})s (.*)$|^\S+ +setup (.*)$`)

// runLog stamps lines with the history's clock once its zero is set, and
// "setup" before.
func TestRunLogStampsHistoryClock(t *testing.T) {
	dir := t.TempDir()
	var copyBuf bytes.Buffer
	l, err := openLog(dir, &copyBuf)
	clustertest.Must(t, err)
	l.logf("starting nodes")
	l.setZero(time.Now().Add(-2 * time.Second))
	l.logf("two seconds in")
	l.logAt(int64(1202*time.Millisecond), "crash")
	clustertest.Must(t, l.close())
	b, _ := os.ReadFile(filepath.Join(dir, store.LogFile))
	if string(b) != copyBuf.String() {
		t.Errorf("the copy differs from lockstorm.log")
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("log has %d lines:\n%s", len(lines), b)
	}
	if m := logLine.FindStringSubmatch(lines[0]); m == nil || m[3] != "starting nodes" {
		t.Errorf("setup line %q is not stamped setup", lines[0])
	}
	for i, want := range []float64{2.0, 1.202} {
		m := logLine.FindStringSubmatch(lines[i+1])
		if m == nil {
			t.Fatalf("line %q does not parse", lines[i+1])
		}
		got, _ := strconv.ParseFloat(m[1], 64)
		if got < want-0.0005 || got > want+0.05 {
			t.Errorf("line %q stamped %.3fs, want %.3fs", lines[i+1], got, want)
		}
	}
}

// A real run (local provider, real redis-server) with a scripted client
// pause: the log lines of the fault's start and stop carry the times of
// the fault's records in the history (to the log's millisecond), the
// setup lines say "setup", and the verdict line, written after the last
// record, is stamped after it on the same clock.
func TestRunLogMatchesHistoryTimes(t *testing.T) {
	plan := nemesis.Scripted(2*time.Second,
		nemesis.Step{At: 700 * time.Millisecond, Fault: nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{"c1"}}, Duration: 400 * time.Millisecond})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Nodes: 1, Clients: 2, TTL: 300 * time.Millisecond,
		Plan: &plan, TimeLimit: 2 * time.Second, Seed: 7, Store: t.TempDir()})
	b := storetest.Read(t, res.Dir, store.LogFile)
	t.Logf("lockstorm.log:\n%s", b)
	stamps := map[string]float64{} // message -> history time (s)
	setup := 0
	var verdictAt float64 = -1
	for _, line := range strings.Split(strings.TrimSpace(b), "\n") {
		m := logLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q does not parse", line)
		}
		if m[3] != "" {
			setup++
			continue
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		stamps[m[2]] = v
		if strings.HasPrefix(m[2], "verdict:") {
			verdictAt = v
		}
	}
	if setup == 0 {
		t.Error("no line stamped setup (the run's first lines come before the history)")
	}
	var last int64
	matched := 0
	for _, op := range recordsOf(t, res) {
		last = max(last, op.Time)
		if !op.IsNemesis() || op.Type == history.Invoke || op.Fault != nemesis.KindClientPause {
			continue
		}
		prefix := "nemesis " + op.F + " " + string(op.Type) + " " + op.Fault + ":"
		found := false
		for msg, at := range stamps {
			if strings.HasPrefix(msg, prefix) {
				found = true
				if d := at - float64(op.Time)/1e9; d < -0.002 || d > 0.002 {
					t.Errorf("%q logged at %.3fs, history has it at %.3fs", msg, at, float64(op.Time)/1e9)
				}
			}
		}
		if !found {
			t.Errorf("no log line for the history's %s", prefix)
		}
		matched++
	}
	if matched < 2 {
		t.Errorf("history has %d client-pause start/stop completions, want 2", matched)
	}
	if end := float64(last) / 1e9; verdictAt < end || verdictAt > end+10 {
		t.Errorf("verdict logged at %.3fs, the history's last record is at %.3fs", verdictAt, end)
	}
}
