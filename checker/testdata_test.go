package checker

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// expected verdicts of the hand-written histories in testdata/. Each row
// gives the composed verdict ("lockstorm") and each checker's.
var testdataVerdicts = []struct {
	file     string
	warnings int
	want     map[string]Validity
	// kinds are anomaly kinds that must be reported (checker/kind).
	kinds []string
	// errHas must appear in the composed Error (invalid histories).
	errHas []string
	check  func(res Result) bool // if set, must hold
}{
	{file: "valid-handover.jsonl", want: allValid()},
	{file: "overlap.jsonl", want: verdicts(Invalid, "lock", Invalid, "resource", Invalid, "exclusion", Invalid),
		kinds: []string{"lock/nonlinearizable", "resource/nonlinearizable", "resource/lost-update", "exclusion/overlap"}},
	// a paused client outlived its lease: the lock kept its promise
	{file: "lease-expired.jsonl", want: verdicts(Invalid, "resource", Invalid, "exclusion", Invalid),
		kinds: []string{"resource/nonlinearizable", "exclusion/write-after-validity"}},
	{file: "fenced-stale-accepted.jsonl", want: verdicts(Invalid, "resource", Invalid, "exclusion", Invalid, "fencing", Invalid),
		kinds: []string{"fencing/stale-write-accepted"}},
	// the same pause with a fencing resource: the stale write is rejected
	{file: "fenced-stale-rejected.jsonl", want: allValid(),
		kinds: []string{"exclusion/write-after-validity-rejected"}},
	{file: "info-acquire.jsonl", want: allValid()},
	// a paused holder's fenced read lands after the next holder's section
	// and is rejected: a fail, no section, no effect; counted by fencing
	{file: "fenced-read-rejected.jsonl", want: allValid(), check: func(res Result) bool {
		return slices.ContainsFunc(res.Results, func(r Result) bool { return r.Name == "fencing" && r.Details.(FencingStats).ReadsRejected == 1 })
	}},
	{file: "lost-update.jsonl", want: verdicts(Invalid, "resource", Invalid),
		kinds: []string{"resource/lost-update", "resource/nonlinearizable"}},
	{file: "cron-twice.jsonl", want: verdicts(Invalid, "resource", Invalid), kinds: []string{"resource/cron-duplicate"}},
	{file: "invalid-history.jsonl", want: map[string]Validity{"lockstorm": Unknown},
		errHas: []string{"op 1: process 0 invokes read while op 0", "op 2: ok completion of release by process 1 has no open invoke", "op 3: nemesis stop of \"partition\" without a start"}},
	{file: "truncated.jsonl", warnings: 1, want: allValid()},
	// a lock that gives two clients the same token: the lock's defect, and
	// the second grant inside the first lease is caught (leases by acquire)
	{file: "reused-token.jsonl", want: verdicts(Invalid, "tokens", Invalid, "lock", Invalid, "exclusion", Invalid),
		kinds: []string{"tokens/reused-token", "lock/nonlinearizable", "exclusion/overlap"}},
	// an acquire with unknown outcome whose lease the watchdog extended
	// and released: it took effect, and the extend is not "held by nobody"
	{file: "info-acquire-extended.jsonl", want: allValid()},
	// one node, no validity recorded: b took over at 0.1 s, so c's grant at
	// 0.105 s is inside b's lease
	{file: "one-node-takeover.jsonl", want: verdicts(Invalid, "lock", Invalid),
		kinds: []string{"lock/nonlinearizable"}},
	{file: "absurd-times.jsonl", want: map[string]Validity{"lockstorm": Unknown},
		errHas: []string{"op 0: time -5000000000 ns is outside", "op 1: time 9223372036854775807 ns is outside"}},
}

func allValid() map[string]Validity {
	return verdicts(Valid)
}

// verdicts builds a want map: the composed verdict, then name/verdict
// pairs; every checker not named is Valid.
func verdicts(all Validity, pairs ...any) map[string]Validity {
	m := map[string]Validity{"lockstorm": all, "lock": Valid, "resource": Valid, "exclusion": Valid, "liveness": Valid, "fencing": Valid}
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i].(string)] = pairs[i+1].(Validity)
	}
	return m
}

func TestTestdataVerdicts(t *testing.T) {
	for _, tc := range testdataVerdicts {
		t.Run(strings.TrimSuffix(tc.file, ".jsonl"), func(t *testing.T) {
			h, warns, err := history.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) != tc.warnings {
				t.Errorf("reader warnings %v, want %d", warns, tc.warnings)
			}
			res := Standard(Options{Fencing: true}).Check(context.Background(), h)
			got := map[string]Validity{res.Name: res.Valid}
			kinds := map[string]bool{}
			for _, r := range res.Results {
				got[r.Name] = r.Valid
				for _, a := range r.Anomalies {
					kinds[r.Name+"/"+a.Kind] = true
					if len(a.Ops) == 0 && a.Kind != "cron-missed" {
						t.Errorf("%s anomaly %s names no ops: %s", r.Name, a.Kind, a.Text)
					}
				}
			}
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: got %v, want %v\n%s", name, got[name], want, res)
				}
			}
			for _, k := range tc.kinds {
				if !kinds[k] {
					t.Errorf("anomaly %s not reported\n%s", k, res)
				}
			}
			if tc.check != nil && !tc.check(res) {
				t.Errorf("check failed\n%s", res)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(res.Error, s) {
					t.Errorf("error %q lacks %q", res.Error, s)
				}
			}
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("result does not encode: %v", err)
			}
		})
	}
}
