package checker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A composed result read back from its JSON has the same typed details
// as the fresh one, and encodes to the same bytes; the kept porcupine
// search is not part of it.
func TestResultJSONKeepsTypedDetails(t *testing.T) {
	h := historytest.NewGen(3, 8, 2).Run(600, true)
	fresh := Standard(Options{Fencing: true}).Check(context.Background(), h)
	b, err := json.Marshal(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(b)), "linearization") {
		t.Errorf("the kept search leaked into the JSON")
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for i, r := range back.Results {
		if r.Details == nil || r.Details.CheckerName() != r.Name {
			t.Errorf("%s: details %T after the round trip", r.Name, r.Details)
		}
		names[r.Name] = true
		if lk, ok := fresh.Results[i].Details.(LockDetails); ok && lk.Linearization == nil {
			t.Errorf("the fresh lock check kept no search")
		}
	}
	for _, n := range []string{"lock", "resource", "exclusion", "liveness", "fencing"} {
		if !names[n] {
			t.Errorf("no %s result", n)
		}
	}
	if lv := back.Results[3].Details.(LivenessDetails); lv.Acquires.OK != fresh.Results[3].Details.(LivenessDetails).Acquires.OK || lv.Acquires.OK == 0 {
		t.Errorf("liveness acquires %+v after the round trip", lv.Acquires)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(again, b) {
		t.Errorf("re-encoding differs:\n%s\n%s", b, again)
	}
}

// Details of a checker this version does not know, and a token check's,
// survive a round trip.
func TestResultJSONOtherDetails(t *testing.T) {
	in := `{"name":"x","valid":true,"results":[{"name":"future","valid":true,"details":{"a":[1,2]}},{"name":"tokens","valid":false,"details":{"reused_tokens":2}}]}`
	var r Result
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if raw, ok := r.Results[0].Details.(RawDetails); !ok || raw.CheckerName() != "future" {
		t.Errorf("unknown checker's details: %#v", r.Results[0].Details)
	}
	if d, ok := r.Results[1].Details.(TokensDetails); !ok || d.ReusedTokens != 2 {
		t.Errorf("tokens details: %#v", r.Results[1].Details)
	}
	out, _ := json.Marshal(r)
	if string(out) != in {
		t.Errorf("got %s, want %s", out, in)
	}
	if err := json.Unmarshal([]byte(`{"name":"lock","details":{"keys":"many"}}`), &r); err == nil {
		t.Error("mistyped lock details read without an error")
	}
}

// The search the lock check keeps draws its page the same each time,
// the acquire with unknown outcome annotated on its row.
func TestKeptLinearizationDraws(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
		Op(5, 6, history.OK, 0, "release", "k", "a").
		Op(2, 50, history.Info, 1, "acquire", "k", "", historytest.TTL(100)).
		Op(7, 8, history.OK, 2, "acquire", "k", "b", historytest.TTL(100)).Sorted()
	res := exact().Check(context.Background(), h)
	z := res.Details.(LockDetails).Linearization
	if res.Valid != Valid || z == nil || z.Valid() != Valid {
		t.Fatalf("%v, kept %v", res.Valid, z)
	}
	var kept, twice bytes.Buffer
	if err := z.WriteHTML(&kept, FaultWindows(h)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept.String(), "acquire info k") {
		t.Errorf("the info acquire is not annotated (%d bytes)", kept.Len())
	}
	if z.WriteHTML(&twice, FaultWindows(h)); twice.String() != kept.String() {
		t.Error("drawing twice adds the annotations twice")
	}
}

// lockPage is porcupine's page of the lock check's search of h, kept
// whole, and the search's own verdict.
func lockPage(t *testing.T, h history.History) (Validity, string) {
	t.Helper()
	z := NewLock().Check(context.Background(), h).Details.(LockDetails).Linearization
	if z == nil {
		t.Fatal("the lock check kept no search")
	}
	var buf bytes.Buffer
	if err := z.WriteHTML(&buf, FaultWindows(h)); err != nil {
		t.Fatal(err)
	}
	return z.Valid(), buf.String()
}

// The page of each history, and the search's own verdict: the
// handover linearizes, the overlap does not; the counter's search is
// kept too.
func TestLinearizationWriteHTML(t *testing.T) {
	want := map[string]Validity{"valid-handover.jsonl": Valid, "overlap.jsonl": Invalid}
	for _, f := range []string{"valid-handover.jsonl", "overlap.jsonl", "info-acquire.jsonl"} {
		h, _, err := history.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		v, out := lockPage(t, h)
		if w, ok := want[f]; ok && v != w {
			t.Errorf("%s: search verdict %v, want %v", f, v, w)
		}
		if !strings.Contains(out, "<html") || !strings.Contains(out, "acquire p0 a") {
			t.Errorf("%s: not a porcupine page with our ops (%d bytes)", f, len(out))
		}
		if f == "valid-handover.jsonl" && !strings.Contains(out, "partition[n1]") {
			t.Errorf("%s: fault window not annotated", f)
		}
		if f == "info-acquire.jsonl" && !strings.Contains(out, "acquire info lock") {
			t.Errorf("%s: info acquire not annotated", f)
		}
		if d := (&Resource{}).Check(context.Background(), h).Details.(ResourceDetails); d.Sections > 0 && d.Linearization == nil {
			t.Errorf("%s: the counter check kept no search", f)
		}
	}
}

// A long token is shortened in its box (first 8 characters and "…") and
// given whole in the operation's metadata, the tooltip, after the ops.
func TestPorcupineBoxesShortenTokens(t *testing.T) {
	tok := "25211190e7ff8fdbf03f87e5a8acb5fd"
	h := history.History{
		{Index: 0, Time: 1, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: 1e9},
		{Index: 1, Time: 2, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: tok, TTL: 1e9},
		{Index: 2, Time: 3, Type: history.Invoke, Process: 0, F: history.FRelease, Key: "k", Token: tok},
		{Index: 3, Time: 4, Type: history.OK, Process: 0, F: history.FRelease, Key: "k", Token: tok},
	}
	v, out := lockPage(t, h)
	if v != Valid {
		t.Fatalf("search verdict %v", v)
	}
	for _, want := range []string{`"acquire p0 25211190…`, `"release p0 25211190… -\u003e ok"`, `"ops 0,1` + MetadataSep + `token ` + tok + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(out, `p0 `+tok) {
		t.Error("a box shows the whole token")
	}
}

// A history cut into segments, failing the lock check in many of them,
// keeps the verbose searches of its maxDrawnSegments earliest failing
// segments only, whatever order their checks end in: each names its
// records, renumbers its rows and is Invalid on its own, and the
// earliest holds the lock's first anomaly.
func TestFailingSegmentsKeepTheirSearch(t *testing.T) {
	g := historytest.NewGen(7, 6, 2)
	g.Run(40_000, false)
	var n int
	for i := len(g.Leases) * 3 / 5; i < len(g.Leases); i += len(g.Leases) / 12 {
		l, p, tok := g.Leases[i], g.NewProcess(), fmt.Sprintf("intruder%d", i)
		c := l.OK + (l.RelInv-l.OK)/3
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: l.Key, TTL: g.TTL, Time: c})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: l.Key, Token: tok, TTL: g.TTL, Validity: g.Validity(c), Time: c + historytest.US})
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: l.Key, Token: tok, Time: c + 2*historytest.US})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRelease, Key: l.Key, Token: tok, Time: c + 3*historytest.US})
		n++
	}
	h := g.History()
	res := Standard(Options{}).Check(context.Background(), h)
	var lock Result
	for _, r := range res.Results {
		if r.Name == "lock" {
			lock = r
		}
	}
	d := lock.Details.(LockDetails)
	if lock.Valid != Invalid || d.Linearization != nil || len(d.Failing) != maxDrawnSegments {
		t.Fatalf("lock %v, whole search %v, %d failing searches kept of %d injected; want Invalid, false, %d", lock.Valid, d.Linearization != nil, len(d.Failing), n, maxDrawnSegments)
	}
	for i, z := range d.Failing {
		if z.Valid() != Invalid || z.First <= 0 || z.Last < z.First || len(z.Processes) == 0 || i > 0 && z.Last <= d.Failing[i-1].Last {
			t.Errorf("failing search %d: %v, records %d..%d, rows %v", i, z.Valid(), z.First, z.Last, z.Processes)
		}
	}
	first := lock.Anomalies[0].Ops[0]
	for _, a := range lock.Anomalies {
		first = min(first, a.Ops[0])
	}
	if z := d.Failing[0]; first < z.First || first > z.Last {
		t.Errorf("the first anomaly's op %d is outside the earliest failing search's records %d..%d", first, z.First, z.Last)
	}
}
