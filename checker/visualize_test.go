package checker

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

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
