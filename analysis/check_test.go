package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// turnsHistory is n lock turns of 4 clients on one key (acquire, read,
// write v+1, release); turn lose writes the previous turn's value.
func turnsHistory(n int, lose int) history.History {
	b := historytest.New()
	v := int64(0)
	for i := range n {
		p, tok, t, w := i%4, fmt.Sprintf("t%d", i), int64(10*i), v+1
		if i == lose {
			w = v // two turns write the same value
		}
		fence := historytest.Fence(int64(i + 1))
		b.Add(t, history.Invoke, p, history.FAcquire, "k", "", historytest.TTL(100))
		b.Add(t+1, history.OK, p, history.FAcquire, "k", tok, fence, historytest.TTL(100), historytest.Validity(t+90))
		b.Op(t+2, t+3, history.OK, p, history.FRead, "c", "", historytest.Value(v))
		b.Op(t+4, t+5, history.OK, p, history.FWrite, "c", "", historytest.Value(w), fence)
		b.Op(t+6, t+7, history.OK, p, history.FRelease, "k", tok)
		v = w
	}
	return b.History()
}

// Check of a history in memory and in its file give the same verdict and
// anomalies.
func TestCheckSameFromFileAndMemory(t *testing.T) {
	for _, lose := range []int{-1, 150} {
		h := turnsHistory(400, lose)
		mem := &Result{Config: config.Config{Lock: "single", Workload: "counter"}, History: history.Slice(h)}
		if err := Check(context.Background(), mem); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "history.jsonl")
		if err := history.WriteFile(path, h); err != nil {
			t.Fatal(err)
		}
		file := &Result{Config: mem.Config, History: history.File(path), Records: len(h)}
		if err := Check(context.Background(), file); err != nil {
			t.Fatal(err)
		}
		if file.Verdict.Valid != mem.Verdict.Valid || !slices.Equal(kinds(file.Verdict), kinds(mem.Verdict)) {
			t.Errorf("lose %d: from the file %v %v, in memory %v %v", lose, file.Verdict.Valid, kinds(file.Verdict), mem.Verdict.Valid, kinds(mem.Verdict))
		}
		if want := map[int]checker.Validity{-1: checker.Valid, 150: checker.Invalid}[lose]; mem.Verdict.Valid != want {
			t.Errorf("lose %d: verdict %v, want %v", lose, mem.Verdict.Valid, want)
		}
	}
}

// kinds lists each part's verdict and anomalies (kind and ops), sorted.
func kinds(r checker.Result) []string {
	var out []string
	for _, p := range r.Results {
		out = append(out, fmt.Sprintf("%s %v", p.Name, p.Valid))
		for _, a := range p.Anomalies {
			out = append(out, fmt.Sprintf("%s %s %v", p.Name, a.Kind, a.Ops))
		}
	}
	slices.Sort(out)
	return out
}

// Config.Drift reaches the lock checker: a takeover 15 ms before the
// first lease's TTL is up is a violation under the default allowance
// (2 ms + 1%), and allowed with 30 ms of drift.
func TestDriftReachesLockChecker(t *testing.T) {
	ttl := int64(time.Second)
	h := history.History{
		{Index: 0, Time: 0, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: ttl},
		{Index: 1, Time: 1e6, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "a", TTL: ttl, Validity: 900e6},
		{Index: 2, Time: 980e6, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k", TTL: ttl},
		{Index: 3, Time: 985e6, Type: history.OK, Process: 1, F: history.FAcquire, Key: "k", Token: "b", TTL: ttl, Validity: 1900e6},
		{Index: 4, Time: 990e6, Type: history.Invoke, Process: 1, F: history.FRelease, Key: "k", Token: "b"},
		{Index: 5, Time: 991e6, Type: history.OK, Process: 1, F: history.FRelease, Key: "k", Token: "b"},
	}
	lockVerdict := func(drift time.Duration) checker.Validity {
		cfg, err := config.Config{Lock: "single", Drift: drift, SkipRecoveryCheck: true}.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		v := Checkers(&Result{Config: cfg, History: history.Slice(h)}).Check(context.Background(), h)
		for _, r := range v.Results {
			if r.Name == "lock" {
				return r.Valid
			}
		}
		t.Fatalf("no lock checker result in %s", v)
		return checker.Unknown
	}
	if v := lockVerdict(0); v != checker.Invalid {
		t.Errorf("default drift: lock checker says %v, want invalid", v)
	}
	if v := lockVerdict(30 * time.Millisecond); v != checker.Valid {
		t.Errorf("30ms drift: lock checker says %v, want valid", v)
	}
}
