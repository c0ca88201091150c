package checker

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

func kindsOf(r Result) map[string]int {
	m := map[string]int{}
	for _, a := range r.Anomalies {
		m[a.Kind]++
	}
	return m
}

func TestValidityJSON(t *testing.T) {
	for v, want := range map[Validity]string{Valid: "true", Invalid: "false", Unknown: `"unknown"`} {
		b, err := json.Marshal(v)
		if err != nil || string(b) != want {
			t.Errorf("%v encodes as %s (%v), want %s", v, b, err, want)
		}
		var back Validity
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("%s decodes as %v (%v)", b, back, err)
		}
	}
	if Merge(Valid, Unknown) != Unknown || Merge(Unknown, Invalid) != Invalid || Merge(Valid, Valid) != Valid {
		t.Error("merge order is not invalid > unknown > valid")
	}
}

// TestValidate: malformed histories (absurd times among them) are refused
// with an error naming the problem, and the composition refuses them with
// an Unknown verdict saying why, never running a checker.
func TestValidate(t *testing.T) {
	at := func(ns int64) historytest.Mod { return func(o *history.Op) { o.Time = ns } }
	set := func(f func(o *history.Op)) historytest.Mod { return f }
	acq := func(mods ...historytest.Mod) history.History {
		return historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", mods...).History()
	}
	cases := []struct {
		name string
		h    history.History
		want string
	}{
		{"bad index", history.History{{Index: 3, Type: history.Invoke, F: "acquire"}}, "record 0 carries index 3"},
		{"completion without invoke", historytest.New().Add(0, history.OK, 0, "acquire", "k", "").History(), "op 0: ok completion of acquire by process 0 has no open invoke"},
		{"two in flight", historytest.New().Add(0, history.Invoke, 0, "acquire", "k", "").Add(1, history.Invoke, 0, "read", "c", "").History(),
			"op 1: process 0 invokes read while op 0 (acquire) is still in flight"},
		{"wrong f", historytest.New().Add(0, history.Invoke, 0, "acquire", "k", "").Add(1, history.OK, 0, "release", "k", "").History(),
			"does not match its open invoke op 0 (acquire)"},
		{"invoke after info", historytest.New().Op(0, 1, history.Info, 0, "acquire", "k", "").Add(2, history.Invoke, 0, "acquire", "k", "").History(),
			"op 2: process 0 invokes acquire after its info completion at op 1"},
		{"completion before invoke", historytest.New().Add(5, history.Invoke, 0, "acquire", "k", "").Add(1, history.OK, 0, "acquire", "k", "").History(),
			"op 1: completes at"},
		{"stop without start", historytest.New().Nemesis(0, history.Info, "stop", "pause").History(),
			`op 0: nemesis stop of "pause" without a start`},
		{"bad nemesis f", historytest.New().Add(0, history.Info, history.NemesisProcess, "acquire", "", "").History(), "nemesis record with f"},
		{"negative time", historytest.New().Op(-5, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).History(), "op 0: time -5000000 ns is outside"},
		{"beyond 100 years", historytest.New().Add(0, history.Invoke, 0, "acquire", "k", "").Add(0, history.OK, 0, "acquire", "k", "a", at(MaxTime+1)).History(), "op 1: time"},
		{"near the int64 limit", historytest.New().Add(0, history.Invoke, 0, "acquire", "k", "", at(math.MaxInt64-10)).Add(0, history.OK, 0, "acquire", "k", "a", at(math.MaxInt64)).History(), "beyond 100 years"},
		{"ttl near the int64 limit", acq(set(func(o *history.Op) { o.TTL = math.MaxInt64 })), "op 0: ttl"},
		{"validity beyond 200 years", acq(set(func(o *history.Op) { o.Validity = MaxValidity + 1 })), "op 0: validity"},
		{"negative validity", acq(set(func(o *history.Op) { o.Validity = -1 })), "validity -1 ns"},
	}
	for _, tc := range cases {
		err := Validate(tc.h)
		if err == nil || !errors.Is(err, ErrInvalidHistory) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
		res := Standard(Options{Fencing: true}).Check(context.Background(), tc.h)
		if res.Valid != Unknown || !strings.Contains(res.Error, tc.want) || !strings.Contains(res.Error, "invalid history") {
			t.Errorf("%s: composition %v (%s), want unknown with %q", tc.name, res.Valid, res.Error, tc.want)
		}
		for _, r := range res.Results {
			if r.Name != "validate" {
				t.Errorf("%s: checker %s ran on a refused history", tc.name, r.Name)
			}
		}
	}
	// allowed: an invoke never completed, a lost notification, an unhealed
	// fault; times not monotonic in index order (RecordAt); a lock without
	// expiry claiming a validity of now + 100 years
	h := historytest.New().
		Nemesis(0, history.Info, "start", "partition", historytest.Detail("n1")).
		Op(1, 2, history.OK, 0, "acquire", "k", "a").
		Add(3, history.Info, 0, history.FLost, "k", "a").
		Add(4, history.Invoke, 0, "release", "k", "a").History()
	for name, h := range map[string]history.History{
		"unfinished":                 h,
		"non-monotonic record times": historytest.New().Op(10, 11, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).Add(5, history.Info, 1, history.FLost, "k", "a").History(),
		"a no-expiry lease":          acq(set(func(o *history.Op) { o.Validity = 2_000_000 + MaxTime })),
	} {
		if err := Validate(h); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
	ws := FaultWindows(h)
	if len(ws) != 1 || !ws[0].Unhealed || ws[0].End != 4*ms || ws[0].Label() != "partition[n1]" {
		t.Fatalf("windows %+v", ws)
	}
}

func TestFaultWindowsPairing(t *testing.T) {
	h := historytest.New().
		Nemesis(0, history.Invoke, "start", "latency").
		Nemesis(1, history.OK, "start", "latency", historytest.Detail("n2 50ms")).
		Nemesis(2, history.Info, "start", "latency").
		Nemesis(3, history.Invoke, "stop", "latency").
		Nemesis(4, history.OK, "stop", "latency").
		Nemesis(5, history.Info, "stop", "latency").History()
	if err := Validate(h); err != nil {
		t.Fatal(err)
	}
	ws := FaultWindows(h)
	if len(ws) != 2 {
		t.Fatalf("windows %+v", ws)
	}
	if ws[0].Start != 0 || ws[0].End != 4*ms || ws[0].Detail != "n2 50ms" || ws[0].StopOp != 4 {
		t.Errorf("first window %+v", ws[0])
	}
	if ws[1].Start != 2*ms || ws[1].End != 5*ms || ws[1].Unhealed {
		t.Errorf("second window %+v", ws[1])
	}
}

type panicky struct{}

func (panicky) Check(context.Context, history.History) Result { panic("boom") }
func (panicky) Name() string                                  { return "panicky" }

type fixed Validity

func (f fixed) Check(context.Context, history.History) Result {
	return Result{Name: "fixed", Valid: Validity(f)}
}

func TestCompose(t *testing.T) {
	h := historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a").Sorted()
	ctx := context.Background()
	if r := Compose(fixed(Valid), fixed(Valid)).Check(ctx, h); r.Valid != Valid || len(r.Results) != 2 {
		t.Errorf("valid+valid: %s", r)
	}
	if r := Compose(fixed(Valid), fixed(Unknown)).Check(ctx, h); r.Valid != Unknown {
		t.Errorf("valid+unknown: %v", r.Valid)
	}
	if r := Compose(fixed(Unknown), fixed(Invalid), fixed(Valid)).Check(ctx, h); r.Valid != Invalid {
		t.Errorf("unknown+invalid: %v", r.Valid)
	}
	r := Compose(fixed(Valid), panicky{}).Check(ctx, h)
	if r.Valid != Unknown || r.Results[1].Name != "panicky" || !strings.Contains(r.Results[1].Error, "boom") {
		t.Errorf("panic: %s", r)
	}
	noAcq := historytest.New().Op(0, 1, history.Fail, 0, "acquire", "k", "").Sorted()
	if r := Compose(fixed(Valid)).Check(ctx, noAcq); r.Valid != Unknown || !strings.Contains(r.Error, "no acquire succeeded") {
		t.Errorf("no acquire: %s", r)
	}
	bad := historytest.New().Add(0, history.OK, 0, "acquire", "k", "a").History()
	if r := Compose(fixed(Valid)).Check(ctx, bad); r.Valid != Unknown || !strings.Contains(r.Error, "no open invoke") {
		t.Errorf("invalid history: %s", r)
	}
}

func TestComposeLabelsFaults(t *testing.T) {
	h := historytest.New().
		Nemesis(0, history.Info, "start", "clock-jump", historytest.Detail("n3 +5s")).
		Op(1, 2, history.OK, 0, "acquire", "k", "a", historytest.TTL(1000)).
		Op(3, 4, history.OK, 1, "acquire", "k", "b", historytest.TTL(1000)).
		Nemesis(5, history.Info, "stop", "clock-jump").History()
	r := Compose(NewLock()).Check(context.Background(), h)
	if r.Valid != Invalid || len(r.Results[0].Anomalies) == 0 {
		t.Fatalf("%s", r)
	}
	if f := r.Results[0].Anomalies[0].Faults; len(f) != 1 || f[0] != "clock-jump[n3 +5s]" {
		t.Errorf("faults %v", f)
	}
}

func TestExclusion(t *testing.T) {
	acq := func(b *historytest.Builder, t0, p int, tok string, validity int64) *historytest.Builder {
		return b.Op(int64(t0), int64(t0+1), history.OK, p, "acquire", "k", tok, historytest.TTL(100), historytest.Validity(validity))
	}
	write := func(b *historytest.Builder, t0 int64, typ history.Type) *historytest.Builder {
		return b.Op(t0, t0+1, typ, 0, "write", "c", "", historytest.Value(1))
	}
	cases := []struct {
		name string
		h    *historytest.Builder
		want Validity
		kind string // an anomaly kind it must report once, if set
		text string // the first anomaly's text must hold it, if set
	}{
		// extends keep the interval alive; a later holder after validity is fine
		{"extended lease", acq(write(acq(historytest.New(), 0, 0, "a", 97).
			Op(80, 81, history.OK, 9, "extend", "k", "a", historytest.TTL(100), historytest.Validity(177)), 150, history.OK), 178, 1, "b", 275), Valid, "", ""},
		// without the extend the write at 150 is after validity
		{"write after validity", write(acq(historytest.New(), 0, 0, "a", 97), 150, history.OK), Invalid, "write-after-validity", ""},
		// a lost signal ends the interval even before validity
		{"lost signal", write(acq(historytest.New(), 0, 0, "a", 97).Add(10, history.Info, 0, history.FLost, "k", "a"), 20, history.Info),
			Valid, "write-after-validity-unknown", "signalled lost"},
		// overlap in the clients' view; the validity cuts the first interval
		{"overlap", acq(acq(historytest.New(), 0, 0, "a", 50), 40, 1, "b", 140), Invalid, "overlap", ""},
		{"no overlap after validity", acq(acq(historytest.New(), 0, 0, "a", 50), 60, 1, "b", 140), Valid, "", ""},
		{"write without lease", write(historytest.New().Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(2, 3, history.OK, 0, "release", "k", "a"), 4, history.OK), Invalid, "", "without holding any lease"},
		// with a shared token, one holder's release cuts its own lease
		{"reused token", historytest.New().
			Op(0, 1, history.OK, 0, "acquire", "k", "host", historytest.TTL(100), historytest.Validity(100)).
			Op(2, 3, history.OK, 1, "acquire", "k", "host", historytest.TTL(100), historytest.Validity(103)).
			Op(50, 51, history.OK, 0, "release", "k", "host"), Invalid, "overlap",
			"process 0 (token host) held the lock in its own view over [0.001s, 0.050s] while process 1 (token host) did over [0.003s, 0.103s]"},
		// an unknown acquire's lease extended by a watchdog is held
		{"watchdog's lease", historytest.New().Op(0, 50, history.Info, 0, "acquire", "k", "a", historytest.TTL(100)).
			Op(60, 61, history.OK, 7, "extend", "k", "a", historytest.TTL(100)).
			Op(70, 71, history.OK, 1, "acquire", "k", "b", historytest.TTL(100)), Invalid, "", ""},
	}
	for _, tc := range cases {
		r := (Exclusion{}).Check(context.Background(), tc.h.Sorted())
		if r.Valid != tc.want || tc.kind != "" && kindsOf(r)[tc.kind] != 1 || tc.text != "" && !strings.Contains(r.Anomalies[0].Text, tc.text) {
			t.Errorf("%s: %s", tc.name, r)
		}
	}
}

// TestResourceCases: api concurrency, leader terms, cron ticks and the
// counter; the streamed check, cut wherever it may, finds the same.
func TestResourceCases(t *testing.T) {
	ctx := context.Background()
	api := historytest.New().
		Op(0, 1, history.OK, 0, "enter", "api", "").
		Op(5, 6, history.OK, 1, "enter", "api", "").
		Op(10, 11, history.OK, 0, "leave", "api", "").
		Op(12, 13, history.OK, 1, "leave", "api", "").Sorted()
	// beats adds leader heartbeats of process p with token f at the ms given
	beats := func(b *historytest.Builder, p int, f int64, at ...int64) *historytest.Builder {
		for _, t := range at {
			b.Op(t, t+1, history.OK, p, "lead", "L", "", historytest.Fence(f))
		}
		return b
	}
	// ticks 1 to 3 by processes 0, 1, 0; tick 2's run failed
	cron := historytest.New()
	for i, typ := range []history.Type{history.OK, history.Fail, history.OK} {
		cron.Op(int64(2*i), int64(2*i+1), typ, i%2, "run", "job", "", historytest.Value(int64(i+1)))
	}
	// a counter section read 5, wrote 6 with an unknown outcome, then
	// another read next and wrote next+1
	afterInfo := func(next int64) history.History {
		return historytest.New().
			Op(0, 1, history.OK, 0, "read", "c", "", historytest.Value(5)).
			Op(2, 3, history.Info, 0, "write", "c", "", historytest.Value(6)).
			Op(10, 11, history.OK, 1, "read", "c", "", historytest.Value(next)).
			Op(12, 13, history.OK, 1, "write", "c", "", historytest.Value(next+1)).Sorted()
	}
	twoSections := historytest.New().
		Op(0, 1, history.OK, 0, "read", "c", "", historytest.Value(0)).
		Op(2, 3, history.OK, 0, "write", "c", "", historytest.Value(1)).
		Op(4, 5, history.OK, 1, "read", "c", "", historytest.Value(1)).
		Op(6, 7, history.OK, 1, "write", "c", "", historytest.Value(2)).Sorted()
	details := func(r Result) ResourceDetails { return r.Details.(ResourceDetails) }
	for _, tc := range []struct {
		name  string
		r     *Resource
		h     history.History
		want  Validity
		kind  string // reported once, if set
		check func(Result) bool
	}{
		{"api overlap", &Resource{}, api, Invalid, "api-overlap", func(r Result) bool { return details(r).API.MaxConcurrent == 2 }},
		{"api within limit 2", &Resource{APILimit: 2}, api, Valid, "", nil},
		// touching but not overlapping (enter ok after the other's leave invoke)
		{"api sequential", &Resource{}, historytest.New().
			Op(0, 1, history.OK, 0, "enter", "api", "").
			Op(2, 4, history.OK, 1, "enter", "api", "").
			Op(3, 5, history.OK, 0, "leave", "api", "").
			Op(6, 7, history.OK, 1, "leave", "api", "").Sorted(), Valid, "", nil},
		{"leader overlap", &Resource{}, beats(beats(historytest.New(), 0, 1, 0, 10, 20), 1, 2, 12).Sorted(), Invalid, "leader-overlap", nil},
		{"leader handover", &Resource{}, beats(beats(historytest.New(), 0, 1, 0, 10), 1, 2, 12, 20).Sorted(), Valid, "", nil},
		{"missed tick reported", &Resource{}, cron.Sorted(), Valid, "cron-missed", nil},
		{"missed tick required", &Resource{RequireEveryTick: true}, cron.Sorted(), Invalid, "", nil},
		// an info write may or may not have landed: both continuations are valid
		{"after an info write, read 5", &Resource{}, afterInfo(5), Valid, "", nil},
		{"after an info write, read 6", &Resource{}, afterInfo(6), Valid, "", nil},
		{"a stale read", &Resource{}, historytest.New().
			Op(0, 1, history.OK, 0, "read", "c", "", historytest.Value(5)).
			Op(2, 3, history.OK, 0, "write", "c", "", historytest.Value(6)).
			Op(10, 11, history.OK, 1, "read", "c", "", historytest.Value(5)).Sorted(), Invalid, "nonlinearizable", nil},
		{"lost from the final value", &Resource{FinalValues: map[string]int64{"c": 1}}, twoSections, Invalid, "",
			func(r Result) bool { return details(r).Counter["c"].Lost == 1 }},
	} {
		r := tc.r.Check(ctx, tc.h)
		if r.Valid != tc.want || tc.kind != "" && kindsOf(r)[tc.kind] != 1 || tc.check != nil && !tc.check(r) {
			t.Errorf("%s: %s", tc.name, r)
		}
		restore := smallSegments(1)
		c := Compose(tc.r)
		if ws, ss := signature(c.checkWhole(ctx, tc.h)), signature(c.Check(ctx, tc.h)); !slices.Equal(ws, ss) {
			t.Errorf("%s: the streamed check differs\nwhole:\n%s\nstreamed:\n%s", tc.name, join(ws), join(ss))
		}
		restore()
	}
}

// A checker with nothing to check says so (NotApplicable) and keeps its
// verdict: the fencing checker on a history without tokens, the resource
// checker on one without resource ops. With tokens or resource ops,
// NotApplicable stays empty. Compose times each part (Seconds).
func TestNotApplicable(t *testing.T) {
	ctx := context.Background()
	unfenced := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "t1").
		Op(2, 3, history.OK, 0, "release", "k", "t1").Sorted()
	if r := (Fencing{}).Check(ctx, unfenced); r.Valid != Valid || r.NotApplicable == "" {
		t.Errorf("fencing without tokens: valid %v, not applicable %q; want valid and a reason", r.Valid, r.NotApplicable)
	}
	if r := (&Resource{}).Check(ctx, unfenced); r.Valid != Valid || r.NotApplicable == "" {
		t.Errorf("resource without resource ops: valid %v, not applicable %q; want valid and a reason", r.Valid, r.NotApplicable)
	}
	fenced := historytest.New().
		Op(0, 1, history.OK, 0, "read", "c", "", historytest.Fence(1), historytest.Value(0)).
		Op(2, 3, history.OK, 0, "write", "c", "", historytest.Fence(1), historytest.Value(1)).Sorted()
	if r := (Fencing{}).Check(ctx, fenced); r.NotApplicable != "" {
		t.Errorf("fencing with tokens says it does not apply: %q", r.NotApplicable)
	}
	if r := (&Resource{}).Check(ctx, fenced); r.NotApplicable != "" {
		t.Errorf("resource with counter ops says it does not apply: %q", r.NotApplicable)
	}
	res := Compose(Fencing{}, &Resource{}).Check(ctx, unfenced)
	if res.Seconds <= 0 {
		t.Errorf("Compose left the composed result's Seconds %v", res.Seconds)
	}
	for _, p := range res.Results {
		if p.Seconds <= 0 {
			t.Errorf("%s: Compose left Seconds %v", p.Name, p.Seconds)
		}
	}
}

// A checker run on a history Validate would refuse (as Lock.Check alone
// can be) must not wrap around: invoke + TTL near the int64 limit
// saturates, so a second grant inside the lease is still caught.
func TestLockSaturatesNearInt64Limit(t *testing.T) {
	const top = math.MaxInt64 - int64(time.Second)
	h := history.History{
		{Index: 0, Time: top, Type: history.Invoke, Process: 0, F: "acquire", Key: "k", TTL: int64(time.Hour)},
		{Index: 1, Time: top + 1, Type: history.OK, Process: 0, F: "acquire", Key: "k", Token: "a", TTL: int64(time.Hour), Nodes: []string{"n1"}},
		{Index: 2, Time: top + 2, Type: history.Invoke, Process: 1, F: "acquire", Key: "k", TTL: int64(time.Hour)},
		{Index: 3, Time: top + 3, Type: history.OK, Process: 1, F: "acquire", Key: "k", Token: "b", TTL: int64(time.Hour), Nodes: []string{"n1"}},
	}
	done := make(chan Result, 1)
	go func() { done <- NewLock().Check(context.Background(), h) }()
	select {
	case r := <-done:
		if r.Valid != Invalid {
			t.Fatalf("double grant near the int64 limit accepted: %s", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lock check hangs near the int64 limit")
	}
	(&Liveness{RequireRecovery: true}).Check(context.Background(), h) // no panic
	if r := (Exclusion{}).Check(context.Background(), h); r.Valid != Invalid {
		t.Fatalf("exclusion near the limit: %s", r)
	}
}

// Fencing tokens above 2^53 survive the JSONL round trip and compare
// exactly: 2^60+1 then 2^60 accepted is a stale write, though the two are
// the same float64.
func TestFencesAbove2to53AreExact(t *testing.T) {
	const f = int64(1) << 60
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.Fence(f+1), historytest.TTL(100)).
		Op(2, 3, history.OK, 0, "write", "c", "", historytest.Fence(f+1), historytest.Value(1)).
		Op(4, 5, history.OK, 0, "release", "k", "a").
		Op(6, 7, history.OK, 1, "acquire", "k", "b", historytest.Fence(f+2), historytest.TTL(100)).
		Op(8, 9, history.OK, 1, "release", "k", "b").
		Op(10, 11, history.OK, 2, "write", "c", "", historytest.Fence(f), historytest.Value(2)).Sorted()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	back, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back[1].Fence != f+1 || back[10].Fence != f {
		t.Fatalf("fences changed in the round trip: %d %d", back[1].Fence, back[10].Fence)
	}
	if r := (Fencing{}).Check(context.Background(), back); r.Valid != Invalid || kindsOf(r)["stale-write-accepted"] == 0 {
		t.Fatalf("stale write with a token above 2^53 missed: %s", r)
	}
}
